import { describe, expect, it } from 'vitest';
import { assertSafeUrl, BlockedDestinationError, type ResolveHostname } from './assert-safe-url';
import { classifyAddress } from './ip-ranges';

// Classification only: nothing in this file opens a socket, and IP literals must never reach DNS.
const FAKE_DNS: Record<string, string[]> = {
  'public.test': ['93.184.215.14'],
  'public6.test': ['2606:4700::1111'],
  'dual.test': ['93.184.215.14', '2606:4700::1111'],
  'private.test': ['10.0.0.5'],
  'loopback.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.215.14', '127.0.0.1'],
  'mixed6.test': ['2606:4700::1111', 'fd00::1'],
  'mapped.test': ['::ffff:169.254.169.254'],
  'compatible.test': ['::127.0.0.1'],
  'nat64.test': ['64:ff9b::a9fe:a9fe'],
  'unspecified.test': ['0.0.0.0'],
  'empty.test': [],
  'garbage.test': ['not-an-ip'],
  'octal-answer.test': ['0177.0.0.1'],
  'zone.test': ['fe80::1%eth0'],
  'localhost': ['127.0.0.1'],
};

const resolve: ResolveHostname = async (hostname) => {
  if (/^[0-9.]+$/.test(hostname) || hostname.includes(':')) throw new Error(`IP literal ${hostname} reached DNS`);
  const answer = FAKE_DNS[hostname];
  if (answer === undefined) throw new Error(`unexpected lookup of ${hostname}`);
  return answer;
};

type Case = [url: string, verdict: 'allow' | 'refuse', why: string];

const IPV4_CASES: Case[] = [
  ['http://0.0.0.0/', 'refuse', 'this network'],
  ['http://0.1.2.3/', 'refuse', 'this network 0/8'],
  ['http://10.0.0.1/', 'refuse', 'RFC 1918 10/8'],
  ['http://10.255.255.255/', 'refuse', 'RFC 1918 10/8 top'],
  ['http://100.64.0.1/', 'refuse', 'CGNAT'],
  ['http://100.127.255.254/', 'refuse', 'CGNAT top'],
  ['http://127.0.0.1/', 'refuse', 'loopback'],
  ['http://127.255.255.254/', 'refuse', 'loopback /8'],
  ['http://169.254.169.254/latest/meta-data/', 'refuse', 'link-local metadata'],
  ['http://172.16.0.1/', 'refuse', 'RFC 1918 172.16/12'],
  ['http://172.31.255.255/', 'refuse', 'RFC 1918 172.16/12 top'],
  ['http://192.0.0.1/', 'refuse', 'IETF protocol assignments'],
  ['http://192.0.0.170/', 'refuse', 'NAT64 discovery, 192.0.0/24'],
  ['http://192.0.2.1/', 'refuse', 'TEST-NET-1'],
  ['http://192.88.99.1/', 'refuse', '6to4 relay anycast'],
  ['http://192.168.1.1/', 'refuse', 'RFC 1918 192.168/16'],
  ['http://198.18.0.1/', 'refuse', 'benchmarking'],
  ['http://198.19.255.255/', 'refuse', 'benchmarking /15 top'],
  ['http://198.51.100.7/', 'refuse', 'TEST-NET-2'],
  ['http://203.0.113.9/', 'refuse', 'TEST-NET-3'],
  ['http://224.0.0.1/', 'refuse', 'multicast'],
  ['http://239.255.255.250/', 'refuse', 'multicast SSDP'],
  ['http://240.0.0.1/', 'refuse', 'reserved 240/4'],
  ['http://255.255.255.255/', 'refuse', 'limited broadcast'],
  ['http://93.184.215.14/', 'allow', 'public control'],
  ['https://8.8.8.8/', 'allow', 'public control'],
  ['http://1.1.1.1:8080/', 'allow', 'public control with port'],
  ['http://11.0.0.1/', 'allow', 'just above 10/8'],
  ['http://100.63.255.255/', 'allow', 'just below CGNAT'],
  ['http://100.128.0.1/', 'allow', 'just above CGNAT'],
  ['http://172.15.255.255/', 'allow', 'just below 172.16/12'],
  ['http://172.32.0.1/', 'allow', 'just above 172.16/12'],
  ['http://192.169.0.1/', 'allow', 'just above 192.168/16'],
  ['http://198.17.255.255/', 'allow', 'just below benchmarking'],
  ['http://198.20.0.1/', 'allow', 'just above benchmarking'],
  ['http://223.255.255.255/', 'allow', 'just below multicast'],
];

const NOTATION_CASES: Case[] = [
  ['http://2130706433/', 'refuse', 'decimal 127.0.0.1'],
  ['http://0177.0.0.1/', 'refuse', 'octal 127.0.0.1'],
  ['http://0x7f.1/', 'refuse', 'hex short 127.0.0.1'],
  ['http://0x7f000001/', 'refuse', 'hex 127.0.0.1'],
  ['http://017700000001/', 'refuse', 'octal long 127.0.0.1'],
  ['http://127.1/', 'refuse', 'short form 127.0.0.1'],
  ['http://127.0.1/', 'refuse', 'three-part 127.0.0.1'],
  ['http://0/', 'refuse', 'zero is 0.0.0.0'],
  ['http://%31%32%37.0.0.1/', 'refuse', 'percent-encoded'],
  ['http://１２７.０.０.１/', 'refuse', 'full-width digits'],
  ['http://127.0.0.1./', 'refuse', 'trailing dot'],
  ['http://0xa9.0xfe.0xa9.0xfe/', 'refuse', 'hex metadata'],
  ['http://169.254.43518/', 'refuse', 'short-form metadata'],
  ['http://3232235777/', 'refuse', 'decimal 192.168.1.1'],
  ['http://0x0A.0.0.1/', 'refuse', 'hex 10.0.0.1'],
  ['http://user:pass@127.0.0.1/', 'refuse', 'userinfo does not hide the host'],
  ['http://1572394766/', 'allow', 'decimal 93.184.215.14'],
];

const IPV6_CASES: Case[] = [
  ['http://[::]/', 'refuse', 'unspecified'],
  ['http://[::1]/', 'refuse', 'loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', 'refuse', 'loopback long form'],
  ['http://[fc00::1]/', 'refuse', 'unique local'],
  ['http://[fd12:3456:789a::1]/', 'refuse', 'unique local fd'],
  ['http://[fe80::1]/', 'refuse', 'link-local'],
  ['http://[febf::1]/', 'refuse', 'link-local top'],
  ['http://[fec0::1]/', 'refuse', 'site-local'],
  ['http://[ff02::1]/', 'refuse', 'multicast'],
  ['http://[ff05::1:3]/', 'refuse', 'multicast site'],
  ['http://[2001:db8::1]/', 'refuse', 'documentation'],
  ['http://[3fff::1]/', 'refuse', 'documentation 3fff::/20'],
  ['http://[100::1]/', 'refuse', 'discard-only'],
  ['http://[2001::1]/', 'refuse', 'Teredo'],
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'refuse', 'Teredo with client 192.0.2.45'],
  ['http://[2001:1::1]/', 'refuse', '2001::/23 PCP anycast'],
  ['http://[2001:2::1]/', 'refuse', 'benchmarking'],
  ['http://[2001:10::1]/', 'refuse', 'ORCHID'],
  ['http://[2001:1ff::1]/', 'refuse', '2001::/23 top'],
  ['http://[64:ff9b::7f00:1]/', 'refuse', 'NAT64 of 127.0.0.1'],
  ['http://[64:ff9b::a9fe:a9fe]/', 'refuse', 'NAT64 of metadata'],
  ['http://[64:ff9b::10.0.0.1]/', 'refuse', 'NAT64 of 10.0.0.1, dotted'],
  ['http://[64:ff9b:1::1]/', 'refuse', 'local-use NAT64'],
  ['http://[64:ff9b:1:5db8:d7:e00::]/', 'refuse', 'local-use NAT64 embedding a public address'],
  ['http://[2002:7f00:1::1]/', 'refuse', '6to4 of 127.0.0.1'],
  ['http://[2002:c0a8:101::1]/', 'refuse', '6to4 of 192.168.1.1'],
  ['http://[::ffff:127.0.0.1]/', 'refuse', 'IPv4-mapped loopback'],
  ['http://[::ffff:7f00:1]/', 'refuse', 'IPv4-mapped loopback hex'],
  ['http://[::ffff:93.184.215.14]/', 'refuse', 'IPv4-mapped public: never a real answer'],
  ['http://[::ffff:0:127.0.0.1]/', 'refuse', 'IPv4-translated'],
  ['http://[::127.0.0.1]/', 'refuse', 'IPv4-compatible loopback'],
  ['http://[::10.0.0.1]/', 'refuse', 'IPv4-compatible private'],
  ['http://[::8.8.8.8]/', 'refuse', 'IPv4-compatible public: deprecated form'],
  ['http://[::2]/', 'refuse', 'IPv4-compatible 0.0.0.2'],
  ['http://[5f00::1]/', 'refuse', 'segment routing'],
  ['http://[4000::1]/', 'refuse', 'outside 2000::/3'],
  ['http://[2620:4f:8000::1]/', 'refuse', 'AS112-v6'],
  ['http://[2606:4700::1111]/', 'allow', 'public control'],
  ['http://[2a00:1450:4001:830::200e]/', 'allow', 'public control'],
  ['http://[2001:4860:4860::8888]/', 'allow', 'public, outside 2001::/23'],
  ['http://[64:ff9b::5db8:d70e]/', 'allow', 'NAT64 of a public address'],
  ['http://[2002:5db8:d70e::1]/', 'allow', '6to4 of a public address'],
];

const SCHEME_CASES: Case[] = [
  ['ftp://example.com/', 'refuse', 'ftp'],
  ['file:///etc/passwd', 'refuse', 'file'],
  ['gopher://example.com/', 'refuse', 'gopher'],
  ['ws://example.com/', 'refuse', 'websocket'],
  ['javascript:alert(1)', 'refuse', 'javascript'],
  ['data:text/plain,hello', 'refuse', 'data'],
  ['not a url', 'refuse', 'unparseable'],
  ['//example.com/', 'refuse', 'scheme-relative'],
];

const HOSTNAME_CASES: Case[] = [
  ['http://localhost/', 'refuse', 'localhost'],
  ['http://LOCALHOST./', 'refuse', 'localhost, upper case with root dot'],
  ['http://api.localhost/', 'refuse', '*.localhost'],
  ['http://public.test/', 'allow', 'public A record'],
  ['https://public6.test/', 'allow', 'public AAAA record'],
  ['http://dual.test/', 'allow', 'public A and AAAA'],
  ['http://private.test/', 'refuse', 'resolves to 10/8'],
  ['http://loopback.test/', 'refuse', 'resolves to loopback'],
  ['http://metadata.test/', 'refuse', 'resolves to metadata'],
  ['http://mixed.test/', 'refuse', 'one record of two is loopback'],
  ['http://mixed6.test/', 'refuse', 'one record of two is ULA'],
  ['http://mapped.test/', 'refuse', 'AAAA is mapped metadata'],
  ['http://compatible.test/', 'refuse', 'AAAA is compatible loopback'],
  ['http://nat64.test/', 'refuse', 'AAAA is NAT64 metadata'],
  ['http://unspecified.test/', 'refuse', 'resolves to 0.0.0.0'],
  ['http://empty.test/', 'refuse', 'no addresses'],
  ['http://garbage.test/', 'refuse', 'resolver returned junk'],
  ['http://octal-answer.test/', 'refuse', 'resolver returned a non-strict IPv4 form'],
  ['http://zone.test/', 'refuse', 'link-local with zone id'],
];

const ALL_CASES = [...IPV4_CASES, ...NOTATION_CASES, ...IPV6_CASES, ...SCHEME_CASES, ...HOSTNAME_CASES];

describe('assertSafeUrl', () => {
  it('covers at least 60 cases', () => {
    expect(ALL_CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(ALL_CASES)('%s → %s (%s)', async (url, verdict) => {
    const attempt = assertSafeUrl(url, { resolve });
    if (verdict === 'allow') {
      const addresses = await attempt;
      expect(addresses.length).toBeGreaterThan(0);
    } else {
      await expect(attempt).rejects.toBeInstanceOf(BlockedDestinationError);
    }
  });

  it('returns the canonical checked addresses', async () => {
    expect(await assertSafeUrl('http://dual.test/', { resolve })).toEqual(['93.184.215.14', '2606:4700::1111']);
    expect(await assertSafeUrl('http://[2606:4700:0:0:0:0:0:1111]/', { resolve })).toEqual(['2606:4700::1111']);
    expect(await assertSafeUrl('http://1572394766/', { resolve })).toEqual(['93.184.215.14']);
  });

  it('throws an error that carries name, reason and url', async () => {
    const error = await assertSafeUrl('http://0x7f.1/x', { resolve }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BlockedDestinationError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'BlockedDestinationError',
      url: 'http://127.0.0.1/x',
      address: '127.0.0.1',
      reason: expect.stringMatching(/loopback 127\.0\.0\.0\/8/),
    });
    const viaName = await assertSafeUrl('http://mixed.test/', { resolve }).catch((caught: unknown) => caught);
    expect((viaName as BlockedDestinationError).reason).toBe('mixed.test resolves to 127.0.0.1, which is in loopback 127.0.0.0/8');
  });

  it('refuses localhost names without asking DNS', async () => {
    const calls: string[] = [];
    const recording: ResolveHostname = async (hostname) => {
      calls.push(hostname);
      return ['93.184.215.14'];
    };
    await expect(assertSafeUrl('http://evil.localhost/', { resolve: recording })).rejects.toThrow(/always means this machine/);
    expect(calls).toEqual([]);
  });

  it('rethrows DNS failures as they are', async () => {
    const failing: ResolveHostname = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(assertSafeUrl('http://nowhere.test/', { resolve: failing })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('stops waiting for DNS when the signal aborts', async () => {
    const hanging: ResolveHostname = () => new Promise(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('gave up')), 20);
    await expect(assertSafeUrl('http://slow.test/', { resolve: hanging, signal: controller.signal })).rejects.toThrow('gave up');
  });

  describe('with allowPrivateNetworks', () => {
    const PRIVATE_CASES: Case[] = [
      ['http://127.0.0.1/', 'allow', 'loopback'],
      ['http://10.0.0.1/', 'allow', 'RFC 1918'],
      ['http://169.254.1.1/', 'allow', 'link-local'],
      ['http://169.254.169.254/latest/meta-data/', 'refuse', 'cloud metadata stays refused'],
      ['http://metadata.test/', 'refuse', 'a name resolving to cloud metadata stays refused'],
      ['http://169.254.43518/', 'refuse', 'short-form metadata stays refused'],
      ['http://169.254.170.2/v2/credentials', 'refuse', 'ECS task credentials stay refused'],
      ['http://100.100.100.200/latest/meta-data/', 'refuse', 'Alibaba metadata stays refused'],
      ['http://[fd00:ec2::254]/latest/meta-data/', 'refuse', 'IPv6 IMDS stays refused'],
      ['http://[::ffff:169.254.169.254]/', 'refuse', 'mapped metadata stays refused'],
      ['http://[64:ff9b::a9fe:a9fe]/', 'refuse', 'NAT64 metadata stays refused'],
      ['http://100.64.0.1/', 'allow', 'CGNAT'],
      ['http://[::1]/', 'allow', 'IPv6 loopback'],
      ['http://[fd00::1]/', 'allow', 'ULA'],
      ['http://[::ffff:127.0.0.1]/', 'allow', 'mapped loopback follows its IPv4'],
      ['http://localhost/', 'allow', 'localhost name'],
      ['http://loopback.test/', 'allow', 'name resolving to loopback'],
      ['http://0.0.0.0/', 'refuse', 'unspecified is never a destination'],
      ['http://224.0.0.1/', 'refuse', 'multicast stays refused'],
      ['http://192.0.2.1/', 'refuse', 'documentation stays refused'],
      ['http://[::ffff:93.184.215.14]/', 'refuse', 'mapped public stays refused'],
      ['http://[2001::1]/', 'refuse', 'Teredo stays refused'],
      ['ftp://127.0.0.1/', 'refuse', 'the scheme check stays'],
      ['file:///etc/passwd', 'refuse', 'the scheme check stays'],
    ];
    it.each(PRIVATE_CASES)('%s → %s (%s)', async (url, verdict) => {
      const attempt = assertSafeUrl(url, { resolve, allowPrivateNetworks: true });
      if (verdict === 'allow') await expect(attempt).resolves.toBeInstanceOf(Array);
      else await expect(attempt).rejects.toBeInstanceOf(BlockedDestinationError);
    });
  });
});

describe('classifyAddress', () => {
  it('decodes the IPv4 inside transition forms', () => {
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toMatchObject({
      kind: 'reserved',
      embeddedIPv4: '192.0.2.45',
      range: expect.stringContaining('server 65.54.227.120, client 192.0.2.45'),
    });
    expect(classifyAddress('64:ff9b::7f00:1')).toMatchObject({ kind: 'private', embeddedIPv4: '127.0.0.1' });
    expect(classifyAddress('64:ff9b::5db8:d70e')).toMatchObject({ kind: 'public', embeddedIPv4: '93.184.215.14' });
    expect(classifyAddress('64:ff9b:1:a9fe:a9:fe00::')).toMatchObject({ kind: 'metadata', embeddedIPv4: '169.254.169.254' });
    expect(classifyAddress('2002:a9fe:a9fe::1')).toMatchObject({ kind: 'metadata', embeddedIPv4: '169.254.169.254' });
    expect(classifyAddress('::ffff:a9fe:a9fe')).toMatchObject({ kind: 'metadata', embeddedIPv4: '169.254.169.254' });
    expect(classifyAddress('64:ff9b:1:a9fe:1:100::')).toMatchObject({ kind: 'private', embeddedIPv4: '169.254.1.1' });
    expect(classifyAddress('::127.0.0.1')).toMatchObject({ kind: 'private', embeddedIPv4: '127.0.0.1', range: expect.stringMatching(/IPv4-compatible/) });
    expect(classifyAddress('::ffff:0.0.0.0')).toMatchObject({ kind: 'reserved', embeddedIPv4: '0.0.0.0' });
  });

  it('treats anything that is not a strict IP as reserved', () => {
    expect(classifyAddress('0177.0.0.1').kind).toBe('reserved');
    expect(classifyAddress('127.1').kind).toBe('reserved');
    expect(classifyAddress('example.com').kind).toBe('reserved');
    expect(classifyAddress('').kind).toBe('reserved');
  });
});
