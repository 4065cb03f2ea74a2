import { assertSafeUrl, BlockedDestinationError, type ResolveHostname } from '../../tools/fetch/assert-safe-url';
import { InvalidInputError } from '../errors';

export type WebhookNetworkOptions = {
  /** FETCH_ALLOW_PRIVATE_NETWORKS: loopback and private addresses, and plain http, become allowed (tests, on-prem receivers). */
  allowPrivateNetworks: boolean;
  /** DNS for the check; the system resolver when absent (tests inject one). */
  resolve?: ResolveHostname;
};

/**
 * Refuses a webhook URL the fetch tool would refuse (the same SSRF classifier, every address the
 * host resolves to), and plain http unless the private-network escape hatch is on. Saving is the
 * first check; every delivery checks again where it connects (DNS may change meanwhile).
 */
export async function checkWebhookUrl(url: string, options: WebhookNetworkOptions): Promise<void> {
  const refuse = (message: string): never => {
    throw new InvalidInputError(message, [{ path: ['url'], message }]);
  };
  if (new URL(url).protocol !== 'https:' && !options.allowPrivateNetworks) refuse('Use an https URL: webhooks carry your runs\' data');
  try {
    await assertSafeUrl(url, { resolve: options.resolve, allowPrivateNetworks: options.allowPrivateNetworks, signal: AbortSignal.timeout(5_000) });
  } catch (error) {
    if (error instanceof BlockedDestinationError) refuse(`This address is not allowed: ${error.reason}. Use a public address`);
    refuse(`Could not resolve the URL's host (${(error as { code?: string }).code ?? (error as Error).message}). Check the address`);
  }
}
