import { describe, expect, it } from 'vitest';
import { noticeFor } from './background-notices.svelte.ts';

describe('background notices', () => {
  it('tells a reader away from the tab that an answer is ready, failed or waits for their approval', () => {
    expect(noticeFor('running', 'succeeded')).toBe('notices.answerReady');
    expect(noticeFor('running', 'failed')).toBe('notices.answerFailed');
    expect(noticeFor('running', 'awaiting_approval')).toBe('notices.needsApproval');
    expect(noticeFor('awaiting_approval', 'succeeded')).toBe('notices.answerReady');
  });

  it('stays quiet for progress, a stop, a status seen again, or the first status a page sees', () => {
    expect(noticeFor('queued', 'running')).toBeUndefined();
    expect(noticeFor('running', 'cancelled')).toBeUndefined();
    expect(noticeFor('succeeded', 'succeeded')).toBeUndefined();
    // A page opened on a finished chat: nothing happened while the reader was away from it.
    expect(noticeFor(undefined, 'succeeded')).toBeUndefined();
  });
});
