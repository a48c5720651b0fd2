#!/usr/bin/python3
"""An independent DSSE v1 signer and verifier, written from the DSSE specification
(protocol.md and envelope.md of secure-systems-lab/dsse) on python3-cryptography's Ed25519.
It shares no code with harkaq: the tests use it to show that harkaq's envelopes verify
elsewhere and that envelopes made elsewhere verify with harkaq.

    dsse_ed25519.py keygen PREFIX                    PREFIX.key (PKCS#8 PEM, 0600), PREFIX.pub
    dsse_ed25519.py sign PAYLOAD TYPE KEY OUT        OUT: an envelope of PAYLOAD's bytes
    dsse_ed25519.py verify ENVELOPE PUB [TYPE]       exit 0 if a signature by PUB verifies
    dsse_ed25519.py payload ENVELOPE                 the payload's bytes on stdout
    dsse_ed25519.py ecdsa-vector PAE_FILE            the spec's test-vector signature (ECDSA
                                                     P-256) checked over PAE_FILE's bytes
"""
import base64
import hashlib
import json
import os
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def pae(payload_type: bytes, body: bytes) -> bytes:
    # protocol.md: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(body), body)


def keyid(public_key) -> str:
    der = public_key.public_bytes(serialization.Encoding.DER,
                                  serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(der).hexdigest()


def b64decode(s: str) -> bytes:
    # envelope.md: either the standard or the URL-safe alphabet, padding optional.
    s = s.replace("-", "+").replace("_", "/")
    return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)


def cmd_keygen(prefix):
    key = ed25519.Ed25519PrivateKey.generate()
    fd = os.open(prefix + ".key", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    with open(prefix + ".pub", "wb") as f:
        f.write(key.public_key().public_bytes(serialization.Encoding.PEM,
                                              serialization.PublicFormat.SubjectPublicKeyInfo))
    print(keyid(key.public_key()))
    return 0


def cmd_sign(payload_path, payload_type, key_path, out_path):
    with open(payload_path, "rb") as f:
        body = f.read()
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    sig = key.sign(pae(payload_type.encode(), body))
    env = {"payload": base64.b64encode(body).decode(), "payloadType": payload_type,
           "signatures": [{"keyid": keyid(key.public_key()),
                           "sig": base64.b64encode(sig).decode()}]}
    with open(out_path, "w") as f:
        json.dump(env, f)
    return 0


def cmd_verify(env_path, pub_path, want_type=None):
    with open(env_path) as f:
        env = json.load(f)
    with open(pub_path, "rb") as f:
        pub = serialization.load_pem_public_key(f.read())
    payload_type = env["payloadType"]
    if want_type is not None and payload_type != want_type:
        print("payloadType %r, want %r" % (payload_type, want_type), file=sys.stderr)
        return 1
    body = b64decode(env["payload"])
    message = pae(payload_type.encode(), body)
    for s in env["signatures"]:
        try:
            pub.verify(b64decode(s["sig"]), message)
        except InvalidSignature:
            continue
        if "keyid" in s and s["keyid"] and s["keyid"] != keyid(pub):
            print("signature verifies but names key %s, not %s" % (s["keyid"], keyid(pub)),
                  file=sys.stderr)
            return 1
        print("verified: %s, %d payload bytes, key %s" % (payload_type, len(body), keyid(pub)))
        return 0
    print("no signature verifies with %s" % pub_path, file=sys.stderr)
    return 1


def cmd_payload(env_path):
    with open(env_path) as f:
        env = json.load(f)
    sys.stdout.buffer.write(b64decode(env["payload"]))
    return 0


# protocol.md, "Test Vectors": the key and the envelope's signature (raw r || s).
VECTOR_X = 46950820868899156662930047687818585632848591499744589407958293238635476079160
VECTOR_Y = 5640078356564379163099075877009565129882514886557779369047442380624545832820
VECTOR_SIG = "A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA=="


def cmd_ecdsa_vector(pae_path):
    with open(pae_path, "rb") as f:
        message = f.read()
    pub = ec.EllipticCurvePublicNumbers(VECTOR_X, VECTOR_Y, ec.SECP256R1()).public_key()
    raw = base64.b64decode(VECTOR_SIG)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        pub.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        print("the test vector's signature does not cover these bytes", file=sys.stderr)
        return 1
    print("the test vector's ECDSA signature verifies over %d bytes" % len(message))
    return 0


def main(argv):
    cmds = {"keygen": (cmd_keygen, 1, 1), "sign": (cmd_sign, 4, 4), "verify": (cmd_verify, 2, 3),
            "payload": (cmd_payload, 1, 1), "ecdsa-vector": (cmd_ecdsa_vector, 1, 1)}
    if len(argv) < 2 or argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 64
    fn, lo, hi = cmds[argv[1]]
    if not lo <= len(argv) - 2 <= hi:
        print(__doc__, file=sys.stderr)
        return 64
    return fn(*argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
