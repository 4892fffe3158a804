package skillsmd

import "github.com/wellknown-dev/discovery/internal/lazyre"

// Sentences that name the credential the API takes state auth when nothing else in
// the guide does (flushLists). They are not all worth the same: "Submit with bearer
// auth." says how to authenticate; "The response includes a one-time-shown API key."
// only says that the API hands a key out. A guide holding both is read for the first.

// credRoom reports whether addCred may still keep a sentence: fewer than
// maxExampleAuth are kept, or those kept may be outranked.
func (p *parser) credRoom() bool { return len(p.credAuth) < maxExampleAuth || p.credWeak }

// addCred keeps s, a sentence naming the credential the API takes, for flushLists. A
// sentence that only mentions a key the API hands out (keyHandedOut) is kept only
// while no other is found, and the first other one drops them all.
func (p *parser) addCred(s string) {
	weak := keyHandedOut(s)
	switch {
	case weak && (len(p.credAuth) > 0 && !p.credWeak || len(p.credAuth) >= maxExampleAuth):
		p.dropCred(s)
		return
	case !weak && p.credWeak:
		for _, w := range p.credAuth {
			p.dropCred(w)
		}
		p.credAuth = p.credAuth[:0]
	}
	p.credWeak = weak
	p.credAuth = append(p.credAuth, s)
}

// dropCred records, when explaining, a sentence addCred did not keep.
func (p *parser) dropCred(s string) {
	if p.explain && len(p.credDropped) < maxEvidence {
		p.credDropped = append(p.credDropped, s)
	}
}

// keyHandedOut reports a sentence that mentions a credential the API hands out (in a
// response, returned, issued, shown, received) without saying how to authenticate
// with it: no bearer, header, "Authorization:", OAuth, "authenticate", nor "with" or
// "using" a key or token.
func keyHandedOut(s string) bool {
	return handedOutRe().MatchString(s) && !howToAuthRe().MatchString(s)
}

// handedOutRe finds a credential given to the caller: "the response includes",
// "returns", "is issued", "one-time-shown", "you receive".
var handedOutRe = lazyre.New(`(?i)\b(?:responses?|respond\w*|returns?|returned|receiv\w*|issu\w*|shown|generat\w*|gives?\s+you|you(?:'ll|\s+will)?\s+get)\b`)

// howToAuthRe finds how to authenticate: bearer, a header, "Authorization:", OAuth,
// "authenticate", or a key or token used "with", "using", "via" or "as" something.
var howToAuthRe = lazyre.New(`(?i)\bbearer\b|\bheaders?\b|\bauthorization\s*:|\boauth|\bauthenticat\w*|\b(?:with|using|via|as)\s+(?:an?\s+|the\s+|your\s+|this\s+|that\s+)?(?:api[ -]?key|token|jwt)\b|\b(?:api[ -]?key|token|jwt)[ -]auth\w*`)
