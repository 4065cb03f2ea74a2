/**
 * Notices for a reader who left the tab: a system notification when an answer in this tab finishes
 * or stops to ask for an approval while the tab is in the background. Off until the reader turns it
 * on (Account → Appearance), which asks the browser's permission; the choice is kept on this device.
 */
import type { MessageKey } from '../i18n/i18n.svelte.ts';

const STORAGE_KEY = 'agentq-background-notices';

export type NoticedStatus = 'connecting' | 'queued' | 'running' | 'awaiting_approval' | 'succeeded' | 'failed' | 'cancelled';

/** What a run's new status tells a reader away from the tab, or undefined when it is not news (running, or a stop they made). */
export function noticeFor(previous: NoticedStatus | undefined, next: NoticedStatus): MessageKey | undefined {
  if (previous === next || previous === undefined) return undefined;
  if (next === 'awaiting_approval') return 'notices.needsApproval';
  if (next === 'succeeded') return 'notices.answerReady';
  if (next === 'failed') return 'notices.answerFailed';
  return undefined;
}

function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

class BackgroundNotices {
  /** The reader turned notices on here (the browser may still refuse them: `permission`). */
  enabled = $state(storage()?.getItem(STORAGE_KEY) === 'on');
  permission = $state<NotificationPermission | 'unsupported'>(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);

  /** Turns notices on (asking the browser's permission first) or off; resolves with whether they are on. */
  async setEnabled(on: boolean): Promise<boolean> {
    if (on && this.permission !== 'unsupported' && this.permission !== 'granted') this.permission = await Notification.requestPermission();
    this.enabled = on && this.permission === 'granted';
    storage()?.setItem(STORAGE_KEY, this.enabled ? 'on' : 'off');
    return this.enabled;
  }

  /** Shows `text` about chat `title` when the tab is in the background and notices are on; one per `tag`. */
  show(text: string, title: string, tag: string): void {
    if (!this.enabled || this.permission !== 'granted' || document.visibilityState !== 'hidden') return;
    const notification = new Notification(text, { body: title, tag });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  }
}

export const backgroundNotices = new BackgroundNotices();
