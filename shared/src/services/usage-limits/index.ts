export { periodWindow, type PeriodWindow } from './periods';
export {
  anyUsageLimit,
  getUsageLimitDefaults,
  getUserUsageLimits,
  limitsFor,
  listUserUsageLimits,
  setUsageLimitDefaults,
  setUserUsageLimits,
  usageLimitSettings,
  type UsageLimitSettings,
} from './settings';
export { readSpend, recordRunSpend, runTokens, spendCounterKeys, type SpendDeps } from './spend';
export { assertWithinUsageLimit, usageLimitStatus, UsageLimitReachedError, type UsageGuardDeps, type UsageSubject } from './enforce';
