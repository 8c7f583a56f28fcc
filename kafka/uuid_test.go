package kafka

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUuidStrings(t *testing.T) {
	// 00112233-4455-6677-8899-aabbccddeeff, as java.util.UUID prints it,
	// and as Kafka's Uuid prints the same two longs: base64url of the 16
	// bytes, "ABEiM0RVZneImaq7zN3u_w" (the last byte 0xff makes the "_").
	u := Uuid{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	if got, want := u.Canonical(), "00112233-4455-6677-8899-aabbccddeeff"; got != want {
		t.Errorf("Canonical() = %q, want %q", got, want)
	}
	if got, want := u.String(), "ABEiM0RVZneImaq7zN3u_w"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestRandomUuidShape(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		u := RandomUuid(r)
		s := u.Canonical()
		// Version 4: the 13th hex digit is 4; IETF variant: the 17th is
		// one of 8, 9, a, b.
		if s[14] != '4' || !strings.ContainsRune("89ab", rune(s[19])) {
			t.Fatalf("%s is not a version-4 IETF-variant UUID", s)
		}
		if k := u.String(); len(k) != 22 || strings.HasPrefix(k, "-") {
			t.Fatalf("Kafka string %q: want 22 characters not starting with '-'", k)
		}
	}
}
