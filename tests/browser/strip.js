// SPDX-License-Identifier: GPL-2.0
/*
 * Drags across a flame graph's time strip in Debian's chromium, as a person
 * would, for t0730-flamegraph-browser.sh:
 *
 *	node strip.js SVG NAME
 *
 * presses the mouse on the middle column of the strip, moves it to the
 * last column and lets go: the second half of the recording, columns
 * [cols / 2, cols).  Prints "sel A,B" and "time T" (the selection, as
 * columns and as report --time), then "root WEIGHT SAMPLES" and "NAME
 * WEIGHT" (the redrawn root, and NAME's frames summed: a function that does
 * not recurse) for the caller to check against report --time.  Then
 * clicks the strip without dragging: every frame must be back where it
 * was ("restored frames=N").  Exits 1 with a reason when a step fails.
 */
'use strict';
const puppeteer = require('puppeteer-core');
const path = require('path');

const [svg, name] = process.argv.slice(2);
const FG = 'urn:x-pmrec:flamegraph';

function fail(msg) {
	console.error('strip.js: ' + msg);
	process.exitCode = 1;
}

// Every frame's rect: x, width, fg:x, fg:w, and its title.
function layout(page) {
	return page.$$eval('#frames > g', gs => gs.map(g => {
		const r = g.querySelector('rect');
		return [r.getAttribute('x'), r.getAttribute('width'), r.getAttribute('fg:x'),
			r.getAttribute('fg:w'), g.querySelector('title').textContent];
	}));
}

(async () => {
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--headless', '--disable-gpu'],
	});
	try {
		const page = await browser.newPage();
		await page.setViewport({ width: 1300, height: 1000 });
		await page.goto('file://' + path.resolve(svg), { waitUntil: 'load' });
		await page.waitForFunction(fg => document.documentElement.getAttributeNS(fg, 'strip') === 'ran',
					   {}, FG);
		const before = await layout(page);
		// The strip's box on the page, and its columns.
		const box = await page.$eval('#strip-bg', r => {
			const b = r.getBoundingClientRect();
			return { x: b.left, y: b.top, w: b.width, h: b.height };
		});
		const cols = await page.$eval('#strip', (g, fg) => +g.getAttributeNS(fg, 'cols'), FG);
		const at = c => box.x + (c + 0.5) * box.w / cols;
		const y = box.y + box.h / 2;

		await page.mouse.move(at(Math.floor(cols / 2)), y);
		await page.mouse.down();
		await page.mouse.move(at(cols - 1), y, { steps: 8 });
		await page.mouse.up();
		const got = await page.evaluate((fg, name) => {
			const svg = document.documentElement, gs = [...document.querySelectorAll('#frames > g')];
			const w = g => +g.querySelector('rect').getAttributeNS(fg, 'w');
			const title = g => g.querySelector('title').textContent;
			return {
				sel: svg.getAttributeNS(fg, 'sel'), time: svg.getAttributeNS(fg, 'time'),
				root: w(gs[0]) + ' ' + title(gs[0]).match(/\((\d+) samples/)[1],
				named: gs.filter(g => title(g).startsWith(name + ' (')).reduce((s, g) => s + w(g), 0),
			};
		}, FG, name);
		console.log(`sel ${got.sel}`);
		console.log(`time ${got.time}`);
		console.log(`root ${got.root}`);
		console.log(`${name} ${got.named}`);
		if (got.sel !== `${Math.floor(cols / 2)},${cols}`)
			fail(`dragged over columns ${Math.floor(cols / 2)} to ${cols - 1}: selected ${got.sel}`);

		// A click without a drag: the whole recording again.
		await page.mouse.click(at(1), y);
		const after = await layout(page);
		if (JSON.stringify(after) !== JSON.stringify(before))
			fail('a click on the strip: frames not back where they were');
		const sel = await page.evaluate(fg => document.documentElement.getAttributeNS(fg, 'sel'), FG);
		if (sel)
			fail(`a click on the strip: still selected ${sel}`);
		console.log(`restored frames=${after.length}`);
	} finally {
		await browser.close();
	}
})().catch(e => {
	fail(e.stack || String(e));
});
