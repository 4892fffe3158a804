package servercard

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// ServerInfo is what a connected MCP server reports about itself, as plain values: the
// serverInfo and protocol version of its initialize (or server/discover) result, and
// the endpoint and transport the client used.
type ServerInfo struct {
	Name            string    // serverInfo.name
	Version         string    // serverInfo.version
	Title           string    // serverInfo.title
	ProtocolVersion string    // the protocol version negotiated
	Transport       Transport // the transport the connection uses
	URL             string    // the endpoint connected to
}

// Compare checks a card against what the server itself reported once connected, and
// returns a Warning diagnostic for each disagreement: the name (equal to the card's
// name, or to its part after the slash, ignoring case), the version, the title, the
// endpoint (one of the card's remotes, a template matching any filled value), its
// transport, and the negotiated protocol version (among the remote's
// supportedProtocolVersions, when the card lists them). Empty fields of got are not
// compared. As the extension says, the runtime values win: a card is advisory, and a
// mismatch is something to show, not a reason to trust the card over the server.
// Compare is pure and never fails; a nil card gives nil.
func Compare(card *Card, got ServerInfo) []Diagnostic {
	if card == nil {
		return nil
	}
	var out []Diagnostic
	warn := func(code, at, msg string) {
		out = append(out, Diagnostic{Severity: Warning, Code: code, Where: at, Message: msg})
	}
	if got.Name != "" && card.Name != "" && !sameName(card.Name, got.Name) {
		warn("name-mismatch", "/name", "the card names the server "+secrets.Quote(card.Name, 0)+"; the server calls itself "+secrets.Quote(got.Name, 0))
	}
	if got.Version != "" && card.Version != "" && strings.TrimPrefix(card.Version, "v") != strings.TrimPrefix(got.Version, "v") {
		warn("version-mismatch", "/version", "the card says version "+secrets.Quote(card.Version, 40)+"; the server reports "+secrets.Quote(got.Version, 40))
	}
	if got.Title != "" && card.Title != "" && card.Title != got.Title {
		warn("title-mismatch", "/title", "the card's title is "+secrets.Quote(card.Title, 0)+"; the server's is "+secrets.Quote(got.Title, 0))
	}
	var remote *Remote
	if got.URL != "" {
		for i := range card.Remotes {
			if card.Remotes[i].matches(got.URL) {
				remote = &card.Remotes[i]
				break
			}
		}
		if remote == nil {
			warn("endpoint-mismatch", "/remotes", "the card lists no remote at "+secrets.Quote(secrets.RedactURL(got.URL), 0))
		}
	}
	if remote != nil && got.Transport != "" && remote.Type != got.Transport {
		warn("transport-mismatch", remote.Pointer+"/type", "the card says "+string(remote.Type)+" at this endpoint; the connection uses "+secrets.Quote(string(got.Transport), 30))
	}
	if remote != nil && got.ProtocolVersion != "" && len(remote.SupportedProtocolVersions) > 0 && !slices.Contains(remote.SupportedProtocolVersions, got.ProtocolVersion) {
		warn("protocol-version-mismatch", remote.Pointer+"/supportedProtocolVersions", "protocol version "+secrets.Quote(got.ProtocolVersion, 30)+" was negotiated; the card lists "+strings.Join(remote.SupportedProtocolVersions, ", "))
	}
	return out
}

// sameName reports whether a server's own name agrees with a card's reverse-DNS name:
// equal, or equal to the part after the slash, ignoring case.
func sameName(card, server string) bool {
	if strings.EqualFold(card, server) {
		return true
	}
	_, short, ok := strings.Cut(card, "/")
	return ok && strings.EqualFold(short, server)
}

// matches reports whether u is this remote's endpoint: the same URL (scheme and host
// compared without case, a default port and a trailing slash ignored), or, for a
// template, the template with each variable matching a value.
func (r Remote) matches(u string) bool {
	got := normalURL(u)
	if got == "" {
		return false
	}
	if !r.Templated() {
		return normalURL(r.URL) == got
	}
	var b strings.Builder
	b.WriteString("^")
	rest := r.URL
	for i := 0; ; i++ {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(strings.ToLower(strings.TrimSuffix(rest, "/"))))
			break
		}
		b.WriteString(regexp.QuoteMeta(strings.ToLower(rest[:open])))
		if i == 0 && open == 0 {
			b.WriteString(".+") // a scheme and host
		} else {
			b.WriteString("[^/?#]+")
		}
		closing := strings.IndexByte(rest[open:], '}')
		if closing < 0 {
			return false // not a template Parse would keep
		}
		rest = rest[open+closing+1:]
	}
	b.WriteString("/?$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(strings.ToLower(got))
}

// normalURL returns u with scheme and host lower-cased, a default port, query,
// fragment and a trailing slash removed; "" when u is not an absolute URL.
func normalURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || !p.IsAbs() || p.Host == "" {
		return ""
	}
	p.Scheme = strings.ToLower(p.Scheme)
	p.Host = strings.ToLower(p.Host)
	if port := p.Port(); (p.Scheme == "https" && port == "443") || (p.Scheme == "http" && port == "80") {
		p.Host = strings.TrimSuffix(p.Host, ":"+port)
	}
	p.RawQuery, p.Fragment, p.RawFragment, p.User = "", "", "", nil
	p.Path = strings.TrimSuffix(p.Path, "/")
	p.RawPath = ""
	return p.String()
}
