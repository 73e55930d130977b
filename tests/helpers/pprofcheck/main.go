// pprofcheck FILE: reads a pprof profile with github.com/google/pprof/profile
// (Debian's golang-github-google-pprof-dev, built offline in GOPATH mode by
// the tests), runs its CheckValid, and prints the sum of each sample value
// ("TYPE/UNIT=SUM") and the table sizes.  Exits 1 with the reason on error.
package main

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pprofcheck FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprofcheck:", err)
		os.Exit(1)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprofcheck: parse:", err)
		os.Exit(1)
	}
	if err := p.CheckValid(); err != nil {
		fmt.Fprintln(os.Stderr, "pprofcheck: CheckValid:", err)
		os.Exit(1)
	}
	sums := make([]int64, len(p.SampleType))
	for _, s := range p.Sample {
		for i, v := range s.Value {
			sums[i] += v
		}
	}
	for i, st := range p.SampleType {
		fmt.Printf("%s/%s=%d\n", st.Type, st.Unit, sums[i])
	}
	fmt.Printf("mappings=%d locations=%d functions=%d samples=%d\n",
		len(p.Mapping), len(p.Location), len(p.Function), len(p.Sample))
}
