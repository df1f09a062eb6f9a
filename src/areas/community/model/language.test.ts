import { describe, expect, it } from 'vitest';
import { isEnglish } from './language.js';

describe('the non-English check', () => {
  const cases: [string, boolean][] = [
    ['the pool APY dropped again this week', true],
    ['wagmi ngmi ser wen lfg', true],
    ['gm', true],
    ['🚀🚀🚀', true],
    ['Hola, alguien sabe como reclamar los tokens de la pool?', false],
    ['Bonjour, est-ce que le pont est cassé pour vous aussi ?', false],
    ['Wie kann ich meine Token auf die andere Chain bridgen und ist das sicher', false],
    ['Всем привет, когда будет аирдроп?', false],
    ['空投什么时候开始', false],
    ['la la la the price is going up for sure', true],
  ];
  it.each(cases)('%s → %s', (text, english) => expect(isEnglish(text)).toBe(english));
});
