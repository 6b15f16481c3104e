package push

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCheckSignature(t *testing.T) {
	body := []byte("<feed>new post</feed>")
	for _, alg := range []string{"sha1", "sha256", "sha384", "sha512"} {
		good := Sign(alg, "s3cret", body)
		if err := CheckSignature("s3cret", good, body); err != nil {
			t.Errorf("%s: good signature refused: %v", alg, err)
		}
		if err := CheckSignature("s3cret", strings.ToUpper(good[:len(alg)])+good[len(alg):], body); err != nil {
			t.Errorf("%s: method in capitals refused: %v", alg, err)
		}
		if err := CheckSignature("other", good, body); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: wrong secret: %v", alg, err)
		}
		if err := CheckSignature("s3cret", good, append(body, ' ')); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: changed body: %v", alg, err)
		}
	}
	for header, want := range map[string]error{
		"":                                     ErrUnsigned,
		"   ":                                  ErrUnsigned,
		"sha256":                               ErrSignature,
		"md5=00112233445566778899aabbccddeeff": ErrSignature,
		"sha1=zz":                              ErrSignature,
		"sha1=00":                              ErrSignature, // too short for sha1
		"sha256=" + strings.Repeat("0", 64):    ErrBadSignature,
		strings.Repeat("a", 300):               ErrSignature,
	} {
		if err := CheckSignature("s3cret", header, body); !errors.Is(err, want) {
			t.Errorf("header %.40q: %v, want %v", header, err, want)
		}
	}
}

func TestSignUnknownAlgorithm(t *testing.T) {
	if Sign("md5", "k", nil) != "" {
		t.Error("md5 signed")
	}
}

// FuzzParseSignature: the parser never panics, and what it accepts is a
// known method with a MAC of that method's size, which verifies exactly
// when it is the body's HMAC.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"sha1=" + strings.Repeat("ab", 20), "sha256=", "SHA512=00", "=", "sha384= 00 ", Sign("sha256", "k", []byte("b"))} {
		f.Add(s, []byte("b"))
	}
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		sig, err := ParseSignature(header)
		if err != nil {
			if !errors.Is(err, ErrSignature) {
				t.Fatalf("error %v is not ErrSignature", err)
			}
			return
		}
		newHash, ok := algorithms[sig.Algorithm]
		if !ok || len(sig.MAC) != newHash().Size() {
			t.Fatalf("accepted %q as %s with %d bytes", header, sig.Algorithm, len(sig.MAC))
		}
		want, _ := ParseSignature(Sign(sig.Algorithm, "k", body))
		if err := CheckSignature("k", header, body); (err == nil) != bytes.Equal(sig.MAC, want.MAC) {
			t.Fatalf("%q: CheckSignature %v, MAC equal %v", header, err, bytes.Equal(sig.MAC, want.MAC))
		}
	})
}
