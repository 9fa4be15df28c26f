// The last blank line before a phrase is found from the end of the text; it must be where the regular
// expression the connector used finds it.
import t from 'tap';
import { lastBlankLine } from '../../../../../src/domain/vetting/connectors/instructions-markdown.ts';

const bySearch = (text: string) => text.search(/\n[ \t>]*\n(?![\s\S]*\n[ \t>]*\n)/);

t.test(
  'the last blank line: where the search finds it, on every short text of newlines, blanks, > and letters',
  async (t) => {
    for (const text of ['', 'a', '\n', '\n\n', '\n\n\n', '\n \n', 'a\n>\nb', '\n\n \n', 'a\n\n\nb\n\nc', '\n>\t\n\n'])
      t.equal(lastBlankLine(text), bySearch(text), JSON.stringify(text));
    let state = 3;
    const pick = (chars: string) => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return chars[state % chars.length]!;
    };
    let differing = 0;
    for (let i = 0; i < 100_000; i++) {
      let text = '';
      for (let k = 0; k < i % 40; k++) text += pick('\n\n \t>aa');
      if (lastBlankLine(text) !== bySearch(text)) {
        differing += 1;
        t.equal(lastBlankLine(text), bySearch(text), JSON.stringify(text));
      }
    }
    t.equal(differing, 0, '100,000 texts');
  },
);
