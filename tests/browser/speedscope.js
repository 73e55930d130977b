// SPDX-License-Identifier: GPL-2.0
/*
 * Opens speedscope's viewer on a profile in Debian's chromium, as a person
 * would, for t0775-speedscope-browser.sh:
 *
 *	node speedscope.js URL PNG
 *
 * loads URL (the viewer with #profileURL=...), waits for the profile to be
 * shown, saves a screenshot in PNG and prints "title TITLE", then
 * "profile NAME" for each profile of the viewer's profile list.  Exits 1
 * with a reason when the page fails: speedscope's error panel, an alert
 * (its "Unrecognized format!"), or a page error.
 */
'use strict';
const puppeteer = require('puppeteer-core');

const [url, png] = process.argv.slice(2);

(async () => {
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--headless', '--disable-gpu'],
	});
	const problems = [];
	try {
		const page = await browser.newPage();
		page.on('dialog', d => { problems.push('alert: ' + d.message()); d.dismiss(); });
		page.on('pageerror', e => problems.push('page error: ' + e.message));
		await page.setViewport({ width: 1200, height: 800 });
		await page.goto(url, { waitUntil: 'load' });
		// Loaded: the toolbar names the profile shown, "NAME (i/n)"; or it failed.
		await page.waitForFunction(() => /\(\d+\/\d+\)/.test(document.body.innerText) ||
			document.body.innerText.includes('Something went wrong') ||
			document.body.innerText.includes('Unrecognized format'), { timeout: 60000 });
		if ((await page.evaluate(() => document.body.innerText)).includes('Something went wrong'))
			problems.push('speedscope: Something went wrong');
		// Two frames for the canvas to be drawn.
		await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
		await page.screenshot({ path: png });
		console.log('title ' + await page.title());
		const names = await page.$$eval('tr[title]', rows => rows.map(r => r.getAttribute('title')));
		for (const n of names)
			console.log('profile ' + n);
	} catch (e) {
		problems.push(String(e));
	} finally {
		await browser.close();
	}
	for (const p of problems)
		console.error('speedscope.js: ' + p);
	if (problems.length)
		process.exitCode = 1;
})();
