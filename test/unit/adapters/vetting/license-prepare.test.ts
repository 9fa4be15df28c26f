// The SPDX texts the license connector compares LICENSE files with are prepared in slices on first use:
// the event loop runs between them (other requests are answered meanwhile), and the result is the one
// preparing them at once gives.
import t from 'tap';
import { identifyLicenseText, prepareSpdxReferences } from '../../../../src/adapters/vetting/license.connector.ts';

t.test('preparing the SPDX texts lets the event loop run, then identifies licenses', async (t) => {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 1);
  try {
    await Promise.all([prepareSpdxReferences(), prepareSpdxReferences()]);
  } finally {
    clearInterval(timer);
  }
  t.ok(ticks >= 3, `timers ran ${ticks} times while the texts were prepared`);
  const apache = [
    'Apache License',
    'Version 2.0, January 2004',
    'http://www.apache.org/licenses/',
    'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION',
  ].join('\n');
  t.equal(identifyLicenseText(apache), null, 'a fragment is no license');
  t.strictSame(
    identifyLicenseText(
      'Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted, provided that the above copyright notice and this permission notice appear in all copies.\n\nTHE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.',
    )?.[0],
    'ISC',
    'the ISC text is identified',
  );
});
