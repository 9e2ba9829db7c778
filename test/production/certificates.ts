// Test certificates: a CA of the test's own, and server and client certificates it signs (RSA keys
// from Node's crypto, X.509 built and signed with node-forge). Nothing here is used outside tests.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface Pem {
  cert: string;
  key: string;
}

function keyPair(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), pem };
}

function newCertificate(subject: string, publicKey: forge.pki.PublicKey): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial (the top bit clear), random so two test CAs never collide.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  return cert;
}

/** A self-signed certificate authority. */
export function makeCa(name = 'pullhost test CA'): Pem {
  const keys = keyPair();
  const cert = newCertificate(name, keys.publicKey);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem };
}

/** A leaf certificate signed by `ca`: a server's (for localhost and 127.0.0.1) or a client's. */
export function issue(ca: Pem, name: string, use: 'server' | 'client'): Pem {
  const keys = keyPair();
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const cert = newCertificate(name, keys.publicKey);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: use === 'server', clientAuth: use === 'client' },
    ...(use === 'server' ? [{ name: 'subjectAltName', altNames: [{ type: 2, value: name }, { type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }] : []),
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.key) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem };
}
