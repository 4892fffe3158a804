package servercard

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// templateVars returns the {variables} of s, once each, in order of appearance, and
// an error for a brace that does not enclose a variable name ([a-zA-Z_][a-zA-Z0-9_]*).
func templateVars(s string) ([]string, error) {
	var vars []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '}':
			return nil, fmt.Errorf("'}' without '{' at byte %d", i+1)
		case '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return nil, fmt.Errorf("'{' without '}' at byte %d", i+1)
			}
			name := s[i+1 : i+1+end]
			if !validVarName(name) {
				return nil, fmt.Errorf("%s in braces is not a variable name", secrets.Quote(name, 40))
			}
			if !slices.Contains(vars, name) {
				vars = append(vars, name)
			}
			i += 1 + end
		}
	}
	return vars, nil
}

func validVarName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return s != "" && len(s) <= maxVarName
}

// maxVarName bounds a variable's name: names are words, and a message may repeat one.
const maxVarName = 64

// fill replaces each {variable} of s with encode(value, atStart), the value taken from
// values, else the variable's preset Value, else its Default.
func fill(s string, vars map[string]Input, values map[string]string, encode func(name, v string, atStart bool) (string, error)) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			b.WriteByte(s[i])
			continue
		}
		end := i + 1 + strings.IndexByte(s[i+1:], '}')
		name := s[i+1 : end]
		in := vars[name]
		v, ok := values[name]
		switch {
		case ok:
		case in.Value != "":
			v = in.Value
		case in.Default != "":
			v = in.Default
		default:
			return "", fmt.Errorf("%w: no value for {%s}", ErrTemplate, name)
		}
		if len(in.Choices) > 0 && !slices.Contains(in.Choices, v) {
			return "", fmt.Errorf("%w: the value of {%s} is not one of its choices", ErrTemplate, name)
		}
		enc, err := encode(name, v, i == 0)
		if err != nil {
			return "", err
		}
		b.WriteString(enc)
		i = end
	}
	return b.String(), nil
}

// Expand fills the remote's URL template and returns a URL to connect to. Each
// variable takes its value from values, else the card's preset value, else its
// default; a variable with none, or with choices that do not include the value, is an
// error wrapping [ErrTemplate]. Values are percent-encoded as in an RFC 6570 simple
// expansion (only letters, digits and "-._~" stay as they are), so a value cannot
// add a path, a query, userinfo or another host: "{tenant}.example.com" stays under
// example.com. A variable at the very start of the template ("{base}/mcp") stands for
// the scheme and host, and takes its value as written. The result must be an absolute
// https URL (http only on a loopback host) without userinfo, or Expand fails with
// ErrTemplate. A remote that is no template expands to its URL, checked the same
// way. Values are the caller's (a user's input); whether to connect to the result is
// still the caller's policy.
func (r Remote) Expand(values map[string]string) (string, error) {
	if _, err := templateVars(r.URL); err != nil {
		return "", fmt.Errorf("%w: %v", ErrTemplate, err)
	}
	out, err := fill(r.URL, r.Variables, values, func(name, v string, atStart bool) (string, error) {
		if atStart {
			return v, nil
		}
		return pctEncode(v), nil
	})
	if err != nil {
		return "", err
	}
	if reason := checkRemoteURL(out, nil); reason != "" {
		return "", fmt.Errorf("%w: the filled URL %s: %s", ErrTemplate, secrets.Quote(secrets.RedactURL(out), 0), reason)
	}
	return out, nil
}

// Expand fills the header's value template as [Remote.Expand] fills a URL, without
// encoding, and returns the header's value. A value holding a line break, NUL or
// another control character is an error wrapping [ErrTemplate] (it could add a header).
func (h Header) Expand(values map[string]string) (string, error) {
	if _, err := templateVars(h.Value); err != nil {
		return "", fmt.Errorf("%w: %v", ErrTemplate, err)
	}
	return fill(h.Value, h.Variables, values, func(name, v string, _ bool) (string, error) {
		for _, c := range v {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return "", fmt.Errorf("%w: the value of {%s} holds a control character", ErrTemplate, name)
			}
		}
		return v, nil
	})
}

// pctEncode percent-encodes every byte of v but the unreserved characters of RFC 3986.
func pctEncode(v string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// checkRemoteURL says why raw, a concrete URL, cannot be connected to: "" when it is
// an absolute https URL (http only on loopback) with a host and no userinfo, and, when
// base (the card's URL) is on a public host, not on this machine or a private network.
func checkRemoteURL(raw string, base *url.URL) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "it does not parse"
	case !u.IsAbs():
		return "it is not absolute"
	case u.User != nil:
		return "it carries userinfo"
	case u.Scheme == "https":
	case u.Scheme == "http" && httpx.IsLoopbackHost(u.Hostname()):
	case u.Scheme == "http":
		return "it is plain http (https is required off loopback)"
	default:
		return "its scheme " + secrets.Quote(u.Scheme, 20) + " is not https"
	}
	if u.Host == "" || u.Hostname() == "" {
		return "it has no host"
	}
	if base != nil && httpx.IsLocalHost(u.Hostname()) && !httpx.IsLocalHost(base.Hostname()) {
		return "it points at this machine or a private network from a card on a public host"
	}
	return ""
}
