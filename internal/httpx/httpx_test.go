package httpx

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "127.9.9.9": true, "::1": true, "::ffff:127.0.0.1": true,
		"localhost.example.com": false, "10.0.0.1": false, "example.com": false, "": false, "0.0.0.0": false,
	} {
		if got := IsLoopbackHost(h); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestValidScheme(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"https": true, "skill": true, "a+b-c.d": true, "": false, "1a": false, "HTTP": false, "a b": false} {
		if got := ValidScheme(s); got != want {
			t.Errorf("ValidScheme(%q) = %v, want %v", s, got, want)
		}
	}
}
