// SPDX-License-Identifier: GPL-2.0
// C++ names for demangling: a namespace, a class template, a lambda.
#include <chrono>
#include <cstdlib>

namespace pmtest {
volatile unsigned long sink;

template <typename T> struct Worker {
	__attribute__((noinline)) T crunch(double seconds)
	{
		auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
		volatile T x = 1;
		auto step = [&x]() __attribute__((noinline)) {
			for (int i = 0; i < 1000000; i++)
				x = x * 2862933555777941757UL + 3037000493UL;
		};
		do
			step();
		while (std::chrono::steady_clock::now() < end);
		return x;
	}
};
} // namespace pmtest

int main(int argc, char **argv)
{
	pmtest::Worker<unsigned long> w;

	pmtest::sink += w.crunch(argc > 1 ? std::atof(argv[1]) : 1.0);
	return 0;
}
