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

func TestIsLocalHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "api.localhost": true, "printer.local": true, "db.internal": true,
		"nas.lan": true, "router.home.arpa": true, "127.0.0.1": true, "10.1.2.3": true, "192.168.0.1": true,
		"169.254.169.254": true, "::1": true, "fd00::1": true, "::ffff:10.0.0.1": true, "0.0.0.0": true,
		"example.com": false, "93.184.215.14": false, "2001:db8::1": false, "localhost.example.com": false, "": false,
	} {
		if got := IsLocalHost(host); got != want {
			t.Errorf("IsLocalHost(%q) = %v, want %v", host, got, want)
		}
	}
}
