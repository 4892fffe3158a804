package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
)

// serverKey names the server at endpoint in what a Session shares beyond itself: the
// keys of its pins (in a PinStore shared with other sessions) and of the listings it
// shares through Options.Listings. Session.Endpoint, shown to people and models, is
// redacted (no query, userinfo or secret-looking path), so two servers can show the
// same Endpoint: a gateway that picks the server by a query parameter, or per-user
// URLs that differ in a secret. The key is the shown endpoint, followed, when
// redaction dropped anything, by "#" and a digest of the full URL (never the URL
// itself, which a PinStore may write to disk): a tool approved on one server, or a
// listing another server marked public, is never taken for another's. The fragment,
// which is never sent, is left out.
func serverKey(endpoint *url.URL, shown string) string {
	u := *endpoint
	u.Fragment, u.RawFragment = "", ""
	full := u.String()
	if full == shown {
		return shown
	}
	sum := sha256.Sum256([]byte(full))
	return shown + "#" + hex.EncodeToString(sum[:16])
}
