import Bowser from 'bowser';
import { DEVICE_TYPES, type DeviceType, type DeviceView } from '../api-types/browser-sessions';

const UNKNOWN_DEVICE: DeviceView = { browser: null, browserVersion: null, os: null, type: null };

/**
 * The browser, its major version, the OS and the kind of device a User-Agent names, for a person
 * to recognise a session by ("Chrome 131 on macOS"). bowser (MIT, no dependencies) knows the
 * browsers' many disguises; anything it cannot name is null, never a guess.
 * @example describeDevice('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) … Version/17.5 Mobile/15E148 Safari/604.1')
 * // { browser: 'Safari', browserVersion: '17', os: 'iOS', type: 'mobile' }
 */
export function describeDevice(userAgent: string | null | undefined): DeviceView {
  if (!userAgent?.trim()) return UNKNOWN_DEVICE;
  const parser = Bowser.getParser(userAgent);
  const browser = parser.getBrowser();
  const type = parser.getPlatformType(true);
  return {
    browser: browser.name || null,
    browserVersion: browser.version?.split('.')[0] || null,
    os: parser.getOSName() || null,
    type: (DEVICE_TYPES as readonly string[]).includes(type) ? (type as DeviceType) : null,
  };
}
