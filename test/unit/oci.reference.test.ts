// References as AICR's `-o oci://…` takes them, registry credentials as a docker config holds
// them, and the Bearer challenge of token registries: parsed into parts, or refused with the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BundleUnreadableError, RegistryCredentialsInvalidError } from '../../shared/errors.ts';
import { basicAuthorization, bearerChallenge, credentialsFor } from '../../shared/oci/credentials.ts';
import { formatReference, parseReference } from '../../shared/oci/reference.ts';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

test('references split into registry, repository, tag and digest', () => {
  const cases: [string, object][] = [
    ['127.0.0.1:5000/aicr/bundle:v1', { registry: '127.0.0.1:5000', repository: 'aicr/bundle', tag: 'v1' }],
    [
      'oci://123456789012.dkr.ecr.us-east-1.amazonaws.com/aicr/plans:2025-01-01_a.b',
      { registry: '123456789012.dkr.ecr.us-east-1.amazonaws.com', repository: 'aicr/plans', tag: '2025-01-01_a.b' },
    ],
    [`localhost:5000/a/b/c@${DIGEST}`, { registry: 'localhost:5000', repository: 'a/b/c', digest: DIGEST }],
    [
      `ghcr.io/nvidia/aicr-bundles:v0.11.1@${DIGEST}`,
      { registry: 'ghcr.io', repository: 'nvidia/aicr-bundles', tag: 'v0.11.1', digest: DIGEST },
    ],
    [
      'registry.local/my__repo/x-y--z:latest',
      { registry: 'registry.local', repository: 'my__repo/x-y--z', tag: 'latest' },
    ],
  ];
  for (const [text, want] of cases) {
    const ref = parseReference(text);
    assert.deepEqual(ref, want, text);
    assert.equal(formatReference(ref), text.replace(/^oci:\/\//, ''), 'formatting gives the reference back');
  }
});

test('a malformed reference is refused with what is wrong and the expected form', () => {
  const cases: [string, RegExp][] = [
    ['bundle:v1', /names no repository/],
    ['127.0.0.1:5000/aicr/bundle', /neither a tag nor a digest/],
    ['127.0.0.1:5000/AICR/bundle:v1', /repository "AICR\/bundle" must be lowercase/],
    ['127.0.0.1:5000/aicr/bundle:-v1', /tag "-v1" is not a valid tag/],
    ['127.0.0.1:5000/aicr/bundle@sha512:abcd', /the digest must be sha256/],
    [`127.0.0.1:5000/aicr/bundle@sha256:${'AB'.repeat(32)}`, /the digest must be sha256/],
    ['https://127.0.0.1:5000/aicr/bundle:v1', /registry host "https:" is not a host name/],
    ['127.0.0.1:5000//bundle:v1', /must be lowercase path components/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseReference(text),
      (err: unknown) =>
        err instanceof BundleUnreadableError &&
        message.test(err.message) &&
        err.message.includes('host[:port]/repository[:tag][@sha256:<hex>]'),
      text,
    );
  }
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');

test('credentials come from the docker config entry of the registry host, as auth or username and password', () => {
  const config = JSON.stringify({
    auths: {
      '127.0.0.1:5000': { auth: b64('puller:pa:ss') },
      'https://registry.example.com/v1/': { username: 'u', password: 'p' },
      'other.example.com': { identitytoken: 'ignored' },
    },
    credsStore: 'desktop',
  });
  assert.deepEqual(credentialsFor(config, '127.0.0.1:5000'), { username: 'puller', password: 'pa:ss' });
  assert.deepEqual(credentialsFor(config, 'registry.example.com'), { username: 'u', password: 'p' });
  assert.equal(
    credentialsFor(config, 'other.example.com'),
    undefined,
    'an entry without a usable credential is anonymous',
  );
  assert.equal(credentialsFor(config, '127.0.0.1:5001'), undefined, 'the port is part of the host');
  assert.equal(credentialsFor(undefined, '127.0.0.1:5000'), undefined);
  assert.equal(credentialsFor('{}', '127.0.0.1:5000'), undefined);
  assert.equal(basicAuthorization({ username: 'puller', password: 'pa:ss' }), `Basic ${b64('puller:pa:ss')}`);
});

test('a docker config that is not JSON, or of the wrong shape, is refused without repeating its content', () => {
  const secret = 'hunter2-secret';
  for (const config of [
    `{"auths": ${secret}`,
    JSON.stringify({ auths: { h: { auth: 7 } } }),
    JSON.stringify({ auths: { h: { auth: b64(secret) } } }),
  ]) {
    assert.throws(
      () => credentialsFor(config, 'h'),
      (err: unknown) =>
        err instanceof RegistryCredentialsInvalidError &&
        !err.message.includes(secret) &&
        !err.message.includes(b64(secret)),
    );
  }
});

test('a Bearer challenge gives its realm, service and scope; a Basic challenge is not one', () => {
  assert.deepEqual(
    bearerChallenge(
      'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull"',
    ),
    {
      realm: 'https://auth.example.com/token',
      service: 'registry.example.com',
      scope: 'repository:a/b:pull',
    },
  );
  assert.deepEqual(bearerChallenge('bearer realm="https://r/t"'), { realm: 'https://r/t' });
  assert.equal(bearerChallenge('Basic realm="aicr-testenv-registry"'), undefined);
  assert.equal(bearerChallenge('Bearer service="x"'), undefined, 'a challenge without a realm cannot be answered');
  assert.equal(bearerChallenge(null), undefined);
});
