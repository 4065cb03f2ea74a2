import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_IMAGE_SIDE, promptColour, startFakeLlm, type FakeLlm } from './server';

let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm();
});

afterAll(async () => {
  await llm.close();
});

const generate = (body: unknown) =>
  fetch(`${llm.url}/images/generations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' }, body: JSON.stringify(body) });

describe('POST /v1/images/generations', () => {
  it('answers a valid PNG of the colour the prompt gets, and records the request', async () => {
    const response = await generate({ model: 'gpt-image-1', prompt: 'a blue whale', n: 1, size: '1024x1024', response_format: 'b64_json' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { b64_json: string; revised_prompt: string }[] };
    const png = Buffer.from(body.data[0]!.b64_json, 'base64');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBe(FAKE_IMAGE_SIDE);
    // The IDAT chunk inflates to rows of a filter byte and the prompt's colour.
    const idatLength = png.readUInt32BE(33);
    expect(png.subarray(37, 41).toString('ascii')).toBe('IDAT');
    const pixels = inflateSync(png.subarray(41, 41 + idatLength));
    expect(pixels.length).toBe(FAKE_IMAGE_SIDE * (1 + FAKE_IMAGE_SIDE * 3));
    expect([...pixels.subarray(1, 4)]).toEqual(promptColour('a blue whale'));
    expect(llm.images).toEqual([{ model: 'gpt-image-1', prompt: 'a blue whale', n: 1, size: '1024x1024', responseFormat: 'b64_json', authorization: 'Bearer sk-test' }]);
  });

  it('answers an injected error, and 400 without a prompt', async () => {
    llm.setImageError({ status: 500, message: 'The painter is out' });
    const failed = await generate({ model: 'gpt-image-1', prompt: 'x' });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ error: { message: 'The painter is out' } });
    llm.setImageError(null);
    expect((await generate({ model: 'gpt-image-1' })).status).toBe(400);
  });
});
