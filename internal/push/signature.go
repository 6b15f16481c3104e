package push

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// The hash functions WebSub §7.1 lets a hub sign with: sha1, sha256, sha384
// and sha512, named in the header exactly so.
var algorithms = map[string]func() hash.Hash{
	"sha1":   sha1.New,
	"sha256": sha256.New,
	"sha384": sha512.New384,
	"sha512": sha512.New,
}

// maxSignatureHeader bounds the header read: "sha512=" and 128 hex digits
// is the longest valid one.
const maxSignatureHeader = 256

// Errors of CheckSignature, for errors.Is.
var (
	ErrUnsigned     = errors.New("delivery has no X-Hub-Signature")
	ErrBadSignature = errors.New("X-Hub-Signature does not match")
	ErrSignature    = errors.New("X-Hub-Signature unreadable")
)

// Signature is a parsed X-Hub-Signature: "method=hex".
type Signature struct {
	Algorithm string // sha1, sha256, sha384 or sha512
	MAC       []byte
}

// ParseSignature reads an X-Hub-Signature value (WebSub §7.1: method=signature,
// signature the hexadecimal HMAC of the body). The method is matched
// case-insensitively and surrounding space is dropped; anything else
// malformed is ErrSignature.
func ParseSignature(header string) (Signature, error) {
	if len(header) > maxSignatureHeader {
		return Signature{}, fmt.Errorf("%w: %d bytes", ErrSignature, len(header))
	}
	method, digest, ok := strings.Cut(strings.TrimSpace(header), "=")
	if !ok {
		return Signature{}, fmt.Errorf("%w: no method=", ErrSignature)
	}
	method = strings.ToLower(strings.TrimSpace(method))
	newHash, known := algorithms[method]
	if !known {
		return Signature{}, fmt.Errorf("%w: method %q", ErrSignature, method)
	}
	mac, err := hex.DecodeString(strings.TrimSpace(digest))
	if err != nil {
		return Signature{}, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if len(mac) != newHash().Size() {
		return Signature{}, fmt.Errorf("%w: %d bytes for %s", ErrSignature, len(mac), method)
	}
	return Signature{Algorithm: method, MAC: mac}, nil
}

// Sign is the X-Hub-Signature a hub sends for body under secret (for
// tests, and for anyone checking what we expect).
func Sign(algorithm, secret string, body []byte) string {
	newHash, ok := algorithms[algorithm]
	if !ok {
		return ""
	}
	m := hmac.New(newHash, []byte(secret))
	m.Write(body)
	return algorithm + "=" + hex.EncodeToString(m.Sum(nil))
}

// CheckSignature judges one delivery: nil when header is a valid HMAC of
// body under secret. A subscription made with a secret obliges the hub to
// sign every delivery (§7.1), so a missing header is as bad as a wrong one.
// The comparison takes constant time (hmac.Equal).
func CheckSignature(secret, header string, body []byte) error {
	if strings.TrimSpace(header) == "" {
		return ErrUnsigned
	}
	sig, err := ParseSignature(header)
	if err != nil {
		return err
	}
	m := hmac.New(algorithms[sig.Algorithm], []byte(secret))
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), sig.MAC) {
		return ErrBadSignature
	}
	return nil
}
