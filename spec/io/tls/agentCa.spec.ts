import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createAgentCa, needsRenewal, type AgentCa } from '../../../src/io/tls/agentCa.ts';
import { readAgentCa } from '../../../src/io/tls/agentCaFiles.ts';
import type { AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import { libraryCsr, opensslCsr, tamper } from './testCsr.ts';
import { createPki, type TestPki } from './testPki.ts';

const uid = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' as InstanceUid;
const other = '0190a1b2-c3d4-7e5f-8a9b-000000000000' as InstanceUid;
const token: AgentCredential = { kind: 'token', name: 'prod' };
const day = 86_400_000;
const caConfig = (pki: TestPki) => ({
  cert_file: pki.ca.certFile,
  key_file: pki.ca.keyFile,
  trust_domain: 'example.org',
  validity: 30 * day,
});

describe('agent CA: signing agents CSRs', () => {
  let pki: TestPki;
  let ca: AgentCa;
  const now = Date.now();

  before(() => {
    pki = createPki('Agent CA');
    const { material, problems } = readAgentCa(caConfig(pki));
    expect(problems).to.deep.equal([]);
    ca = createAgentCa(material!, { trustDomain: 'example.org', validityMs: day });
  });
  after(() => pki.cleanup());

  async function issue(csrPem: string, credential: AgentCredential = token) {
    const out = await ca.signAgentCsr({ csrPem, instanceUid: uid, credential, now });
    if (!out.ok) throw new Error(out.reason);
    const file = join(pki.dir, `issued-${out.serial}.crt`);
    writeFileSync(file, out.certPem);
    return { ...out, file, cert: new X509Certificate(out.certPem) };
  }

  it('issues a client certificate that openssl verifies, naming only the agent', async () => {
    // The CSR asks for another name, a server role and a CA bit: all ignored, only its key is used.
    const csr = opensslCsr(pki.dir, 'agent', {
      subj: '/CN=mallory',
      ext: ['subjectAltName=URI:spiffe://example.org/ops/admin,DNS:evil.example', 'basicConstraints=CA:TRUE'],
    });
    const out = await issue(csr.csrPem);
    const verify = execFileSync('openssl', [
      'verify',
      '-CAfile',
      pki.ca.certFile,
      '-purpose',
      'sslclient',
      out.file,
    ]);
    expect(verify.toString()).to.contain(': OK');
    expect(out.cert.subjectAltName).to.equal(`URI:spiffe://example.org/agent/${uid}`);
    expect(out.cert.subject).to.equal(`CN=${uid}`);
    expect(out.cert.ca).to.equal(false);
    expect(out.cert.keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.2']); // clientAuth only
    expect(out.cert.checkIssued(new X509Certificate(pki.ca.cert))).to.equal(true);
    expect(out.cert.serialNumber.toLowerCase()).to.equal(out.serial);
    expect(out.notAfter - now).to.equal(day);
    expect(now - out.notBefore).to.equal(5 * 60_000); // agents whose clock lags accept it
    expect(Math.abs(Date.parse(out.cert.validTo) - out.notAfter)).to.be.below(1000);
    expect(out.caPem).to.equal(new X509Certificate(pki.ca.cert).toString());
    const pair = execFileSync('openssl', ['x509', '-in', out.file, '-noout', '-pubkey']).toString();
    const csrKey = execFileSync('openssl', ['pkey', '-in', csr.keyFile, '-pubout']).toString();
    expect(pair).to.equal(csrKey);
  });

  it('signs CSRs of Ed25519 (made by the library) and RSA keys, and takes the PEM as bytes', async () => {
    const ed = await issue(await libraryCsr('ed'));
    expect(ed.cert.publicKey.asymmetricKeyType).to.equal('ed25519');
    const rsa = opensslCsr(pki.dir, 'rsa', { key: ['-newkey', 'rsa:2048'] });
    const out = await ca.signAgentCsr({
      csrPem: new TextEncoder().encode(rsa.csrPem),
      instanceUid: uid,
      credential: token,
      now,
    });
    expect(out.ok).to.equal(true);
  });

  it('recognises a certificate it issued, presented over a real mTLS handshake, by instance id', async () => {
    const csr = opensslCsr(pki.dir, 'tls-agent');
    const out = await issue(csr.csrPem);
    const server = pki.server();
    const tls = createServer({
      cert: server.cert,
      key: server.key,
      ca: pki.ca.cert,
      requestCert: true,
      rejectUnauthorized: true,
    });
    const peers: X509Certificate[] = [];
    tls.on('secureConnection', (socket: TLSSocket) => {
      peers.push(socket.getPeerX509Certificate()!);
      socket.end();
    });
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    const port = (tls.address() as { port: number }).port;
    const client = connect({
      host: '127.0.0.1',
      port,
      cert: out.certPem,
      key: csr.keyPem,
      ca: pki.ca.cert,
      servername: 'localhost',
    });
    await once(client, 'secureConnect');
    await once(client, 'end');
    tls.close();
    expect(ca.issuedAgent(peers[0]!, now)).to.deep.include({ instanceUid: uid, serial: out.serial });
  });

  it('does not recognise certificates of another CA, expired ones, or ones naming no agent', async () => {
    const foreign = createPki('Other CA');
    try {
      const stranger = foreign.issue('x', { sans: [`URI:spiffe://example.org/agent/${uid}`] });
      expect(ca.issuedAgent(new X509Certificate(stranger.cert), now)).to.equal(undefined);
    } finally {
      foreign.cleanup();
    }
    const mine = await issue(opensslCsr(pki.dir, 'expiring').csrPem);
    expect(ca.issuedAgent(mine.cert, mine.notAfter + 2000)).to.equal(undefined);
    const service = pki.issue('service', { sans: ['URI:spiffe://example.org/ops/alice'] });
    expect(ca.issuedAgent(new X509Certificate(service.cert), now)).to.equal(undefined);
  });

  it('never issues past its own expiry', async () => {
    const { material } = readAgentCa(caConfig(pki));
    const long = createAgentCa(material!, { trustDomain: 'example.org', validityMs: 30 * day });
    const out = await long.signAgentCsr({
      csrPem: opensslCsr(pki.dir, 'long').csrPem,
      instanceUid: uid,
      credential: token,
      now,
    });
    expect(out.ok && out.notAfter).to.equal(Date.parse(new X509Certificate(pki.ca.cert).validTo));
  });

  it('renews past two thirds of the validity', () => {
    expect(needsRenewal(0, 30 * day, 20 * day - 1)).to.equal(false);
    expect(needsRenewal(0, 30 * day, 20 * day)).to.equal(true);
  });

  describe('refuses, with a reason for the agent', () => {
    const refusal = async (csrPem: string | Uint8Array, credential: AgentCredential | null = token) => {
      const out = await ca.signAgentCsr({
        csrPem,
        instanceUid: uid,
        credential: credential ?? undefined,
        now,
      });
      expect(out.ok).to.equal(false);
      return out.ok ? '' : out.reason;
    };
    const good = () => opensslCsr(pki.dir, 'good').csrPem;

    it('an unauthenticated agent', async () => {
      expect(await refusal(good(), null)).to.match(/only to an authenticated agent/);
    });
    it('a certificate this CA issued for another agent', async () => {
      const cert: AgentCredential = {
        kind: 'agent_certificate',
        name: `spiffe://example.org/agent/${other}`,
        serial: '01',
      };
      expect(await refusal(good(), cert)).to.match(/names another agent/);
    });
    it('a CSR whose signature does not verify', async () => {
      expect(await refusal(tamper(good()))).to.equal(
        'bad CSR: its signature does not verify with its public key',
      );
    });
    it('an empty, oversized, binary or garbage CSR, or two of them', async () => {
      expect(await refusal('')).to.equal('bad CSR: empty');
      expect(await refusal('x'.repeat(20_000))).to.match(/larger than 16384 bytes/);
      expect(await refusal(new Uint8Array([0xff, 0xfe, 0x00]))).to.equal('bad CSR: not UTF-8 text');
      expect(await refusal('hello')).to.equal('bad CSR: not one PEM CERTIFICATE REQUEST block');
      expect(await refusal(good() + good())).to.equal('bad CSR: not one PEM CERTIFICATE REQUEST block');
      const junk = '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n';
      expect(await refusal(junk)).to.match(/^bad CSR: does not parse/);
    });
    it('keys the service does not sign for', async () => {
      const weak = opensslCsr(pki.dir, 'weak', { key: ['-newkey', 'rsa:1024'] });
      expect(await refusal(weak.csrPem)).to.match(/RSA keys of 1024 bits are too short/);
      const k1 = opensslCsr(pki.dir, 'k1', {
        key: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp256k1'],
      });
      expect(await refusal(k1.csrPem)).to.match(/EC curve secp256k1 is not supported/);
    });
  });
});

describe('agent CA: startup validation', () => {
  let pki: TestPki;
  before(() => (pki = createPki('Agent CA')));
  after(() => pki.cleanup());

  it('refuses a certificate that is not a CA, or a key that is not its own', () => {
    const leaf = pki.issue('leaf');
    expect(
      readAgentCa({ ...caConfig(pki), cert_file: leaf.certFile, key_file: leaf.keyFile }).problems,
    ).to.deep.equal([
      `agents.ca.cert_file: ${leaf.certFile} is not a CA certificate (basicConstraints CA:TRUE is missing)`,
    ]);
    expect(readAgentCa({ ...caConfig(pki), key_file: leaf.keyFile }).problems).to.deep.equal([
      `agents.ca.key_file: ${leaf.keyFile} does not belong to the certificate in agents.ca.cert_file`,
    ]);
  });

  it('refuses a CA certificate whose key usage does not allow signing certificates', () => {
    const cert = join(pki.dir, 'no-sign.crt');
    const key = join(pki.dir, 'no-sign.key');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        '/CN=No signing',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,digitalSignature',
      ],
      { stdio: 'ignore' },
    );
    expect(readAgentCa({ ...caConfig(pki), cert_file: cert, key_file: key }).problems).to.deep.equal([
      `agents.ca.cert_file: ${cert} has a key usage without keyCertSign`,
    ]);
  });

  it('requires the trust domain and both files, and refuses an expired CA', () => {
    expect(readAgentCa({ ...caConfig(pki), trust_domain: '' }).problems).to.deep.equal([
      'agents.ca.trust_domain is required with agents.ca.cert_file',
    ]);
    expect(readAgentCa({ ...caConfig(pki), key_file: '' }).problems).to.deep.equal([
      'agents.ca.cert_file and agents.ca.key_file must be set together',
    ]);
    expect(readAgentCa(caConfig(pki), Date.now() + 3 * 86_400_000).problems[0]).to.match(/ expired at /);
    expect(readAgentCa({ cert_file: '', key_file: '', trust_domain: '', validity: 1 })).to.deep.equal({
      problems: [],
    });
  });
});
