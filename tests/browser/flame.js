// SPDX-License-Identifier: GPL-2.0
/*
 * Drives Debian's chromium over a flame graph, as a person would, for
 * t0730-flamegraph-browser.sh:
 *
 *	node flame.js SVG FRAME REGEX
 *
 * clicks the first frame named FRAME (it must then span the whole width,
 * and a frame outside it must be hidden), clicks Reset Zoom (every frame
 * back where it was), then clicks Search and types REGEX into the prompt.
 * Prints "matched TEXT WEIGHT" (the Matched text and the summed weight of
 * the matched frames) for the caller to check against the folded stacks;
 * exits 1 with a reason when a step fails.
 */
'use strict';
const puppeteer = require('puppeteer-core');
const path = require('path');

const [svg, frameName, regex] = process.argv.slice(2);

function fail(msg) {
	console.error('flame.js: ' + msg);
	process.exitCode = 1;
}

// Every frame's rect x and width, in document order.
function layout(page) {
	return page.$$eval('#frames > g > rect', rs => rs.map(r => [r.getAttribute('x'), r.getAttribute('width')]));
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
		await page.waitForFunction(() =>
			document.documentElement.getAttributeNS('urn:x-pmrec:flamegraph', 'script') === 'ran');
		const span = await page.evaluate(() =>
			document.documentElement.getAttributeNS('urn:x-pmrec:flamegraph', 'span'));
		const before = await layout(page);

		// Zoom: click the frame's rect.
		// The widest frame of that name: a stray sample may put another, narrow one elsewhere.
		const idx = await page.$$eval('#frames > g', (gs, name) => {
			let best = -1;
			gs.forEach((g, i) => {
				if (g.querySelector('title').textContent.startsWith(name + ' (') &&
				    (best < 0 || +g.querySelector('rect').getAttribute('width') >
				     +gs[best].querySelector('rect').getAttribute('width')))
					best = i;
			});
			return best;
		}, frameName);
		if (idx < 0)
			throw new Error('no frame ' + frameName);
		const rects = await page.$$('#frames > g > rect');
		await rects[idx].click();
		const z = await page.$$eval('#frames > g', (gs, i) => {
			const r = gs[i].querySelector('rect');
			return { x: r.getAttribute('x'), w: r.getAttribute('width'),
				 hidden: gs.filter(g => g.classList.contains('hide')).length,
				 reset: !document.getElementById('unzoom').classList.contains('hide') };
		}, idx);
		if (+z.x !== 10 || Math.abs(+z.w - +span) > 0.01)
			fail(`zoomed ${frameName}: x ${z.x} width ${z.w}, want 10 and ${span}`);
		if (!z.hidden)
			fail('zoomed: no frame outside it hidden');
		if (!z.reset)
			fail('zoomed: no Reset Zoom button');
		console.log(`zoom ${frameName} x=${z.x} width=${z.w} hidden=${z.hidden}`);

		// Reset: every frame back.
		await page.click('#unzoom');
		const after = await layout(page);
		if (JSON.stringify(after) !== JSON.stringify(before))
			fail('Reset Zoom: frames not back where they were');
		const hiddenAfter = await page.$$eval('#frames > g.hide', gs => gs.length);
		if (hiddenAfter)
			fail(`Reset Zoom: ${hiddenAfter} frames still hidden`);
		console.log(`reset frames=${after.length}`);

		// Search: the prompt gets the regular expression.
		page.once('dialog', d => d.accept(regex));
		await page.click('#search');
		await page.waitForFunction(() => document.getElementById('matched').textContent.startsWith('Matched'));
		const m = await page.evaluate(() => {
			const t = document.getElementById('matched');
			return [t.textContent, t.getAttributeNS('urn:x-pmrec:flamegraph', 'matched'),
				document.querySelectorAll('#frames > g.match').length];
		});
		console.log(`matched ${m[0]} ${m[1]} frames=${m[2]}`);
	} finally {
		await browser.close();
	}
})().catch(e => {
	fail(e.stack || String(e));
});
