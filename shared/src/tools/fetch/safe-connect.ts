import type { LookupAddress } from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import {
  assertAddressesAllowed,
  BlockedDestinationError,
  type ResolveHostname,
  resolveWithSystemDns,
} from './assert-safe-url';
import { canonicalizeIp } from './ip-ranges';

export type SafeAgentOptions = {
  resolve?: ResolveHostname;
  allowPrivateNetworks: boolean;
  /** Milliseconds allowed for the TCP (and TLS) handshake. */
  connectTimeout?: number;
};

/**
 * An undici 8 `Agent` that checks addresses where the socket is opened: hostnames go through a
 * `lookup` that resolves, refuses if any address is not allowed, and hands `net.connect` only
 * the addresses it just checked, so a DNS answer that changes between the pre-flight check and
 * the connection (rebinding) cannot reach a private address. IP literals, which never reach
 * `lookup`, are checked before dialling, and the connected peer is checked once more.
 * Proxy variables are never consulted: this is a plain Agent, not EnvHttpProxyAgent.
 */
export function createSafeAgent(options: SafeAgentOptions): Agent {
  const resolve = options.resolve ?? resolveWithSystemDns;
  const { allowPrivateNetworks } = options;

  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        let checked: string[];
        try {
          checked = assertAddressesAllowed(hostname, addresses, allowPrivateNetworks, hostname).map(
            (entry) => entry.address,
          );
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        const wantedFamily = familyNumber(lookupOptions.family);
        const records: LookupAddress[] = checked
          .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
          .filter((record) => wantedFamily === 0 || record.family === wantedFamily);
        if (records.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`No IPv${wantedFamily} address for ${hostname}`);
          error.code = 'ENOTFOUND';
          callback(error, '', 0);
          return;
        }
        if (lookupOptions.all) callback(null, records);
        else callback(null, records[0]!.address, records[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  const baseConnect = buildConnector({
    lookup: checkedLookup,
    ...(options.connectTimeout !== undefined && { timeout: options.connectTimeout }),
  });

  const connect: buildConnector.connector = (connectOptions, callback) => {
    const destination = `${connectOptions.protocol}//${connectOptions.host ?? connectOptions.hostname}`;
    if (canonicalizeIp(connectOptions.hostname) !== null) {
      try {
        assertAddressesAllowed(destination, [connectOptions.hostname], allowPrivateNetworks);
      } catch (error) {
        callback(error as Error, null);
        return;
      }
    }
    baseConnect(connectOptions, (...result) => {
      const [error, socket] = result;
      if (error) {
        callback(error, null);
        return;
      }
      const peerError = checkPeer(destination, socket as Socket, allowPrivateNetworks);
      if (peerError) {
        socket.destroy();
        callback(peerError, null);
        return;
      }
      callback(null, socket);
    });
  };

  return new Agent({ connect });
}

/** Last line of defence: whatever path the socket took, the peer it reached must be allowed. */
function checkPeer(destination: string, socket: Socket, allowPrivateNetworks: boolean): Error | undefined {
  const peer = socket.remoteAddress;
  if (!peer) return new BlockedDestinationError({ url: destination, reason: 'the connected peer address is unknown' });
  try {
    assertAddressesAllowed(destination, [peer], allowPrivateNetworks);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

function familyNumber(family: number | string | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}
