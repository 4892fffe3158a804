package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/termtext"
	"github.com/wellknown-dev/discovery/servercard"
	"github.com/wellknown-dev/discovery/trust"
)

// Document kinds of the AI Catalog family.
const (
	KindAICatalog  = "ai-catalog"
	KindServerCard = "server-card"
)

// maxCardFetches bounds the cards a fetched catalog has fetched by URL; the rest are
// reported, once, as not checked.
const maxCardFetches = 16

// catalogKind tells an AI Catalog or an MCP Server Card by its file name
// (ai-catalog.json, *.ai-catalog.json; server-card.json, *.server-card.json, or the
// recommended card URL's last segment, server-card), then by its content: a
// catalog's specVersion and entries; a card's $schema (one of the MCP schemas'
// site, so that a card naming the registry's server.json schema is told it is
// wrong), or, without $schema, a reverse-DNS "name" ("org/server") and a "version"
// with none of the keys of an mcp.json. "" for anything else.
func catalogKind(name string, probe map[string]json.RawMessage) string {
	n := strings.ToLower(name)
	switch {
	case n == "ai-catalog.json" || strings.HasSuffix(n, ".ai-catalog.json"):
		return KindAICatalog
	case n == "server-card.json" || strings.HasSuffix(n, ".server-card.json") || n == "server-card":
		return KindServerCard
	case probe == nil:
		return ""
	}
	_, spec := probe["specVersion"]
	_, entries := probe["entries"]
	if spec && entries {
		return KindAICatalog
	}
	if s, ok := probe["$schema"]; ok {
		s = bytes.ToLower(s)
		if bytes.Contains(s, []byte("server-card")) || bytes.Contains(s, []byte("static.modelcontextprotocol.io/schemas/")) {
			return KindServerCard
		}
		return ""
	}
	var server string
	if json.Unmarshal(probe["name"], &server) != nil || strings.Count(server, "/") != 1 || probe["version"] == nil {
		return ""
	}
	for _, k := range []string{"mcp", "servers", "mcpServers", "mcp_servers", "url", "endpoint", "entries", "skills"} {
		if _, ok := probe[k]; ok {
			return ""
		}
	}
	return KindServerCard
}

// served is what lint checks of how a catalog or card was served: nil for a file.
type served = *fetched

// checkServed reports, as warnings, what a host of a catalog or card should send and
// does not: the media type, CORS (Access-Control-Allow-Origin, so that agents in a
// browser can read it), and ETag and Cache-Control (so that clients cache and
// revalidate with If-None-Match), as the Server Card extension's discovery document
// says.
func (l *linter) checkServed(file, kind string, res served) {
	if res == nil {
		return
	}
	want := aicatalog.MediaType
	if kind == KindServerCard {
		want = servercard.MediaType
	}
	warn := func(code, msg string) {
		l.add(Problem{File: file, Severity: diag.Warning, Code: code, Message: msg})
	}
	mt, _, err := mime.ParseMediaType(res.ctype)
	switch {
	case res.ctype == "" || err != nil:
		warn("media-type", fmt.Sprintf("served without a usable Content-Type: serve it as %s", want))
	case !strings.EqualFold(mt, want):
		warn("media-type", fmt.Sprintf("served as %s: serve it as %s", termtext.Clean(mt, 64), want))
	}
	if res.header.Get("Access-Control-Allow-Origin") == "" {
		warn("cors", "no Access-Control-Allow-Origin header: agents running in a browser cannot read it; send Access-Control-Allow-Origin: *")
	}
	if res.header.Get("ETag") == "" {
		warn("etag", "no ETag header: clients cannot revalidate it with If-None-Match and fetch it whole every time")
	}
	if res.header.Get("Cache-Control") == "" {
		warn("cache-control", "no Cache-Control header: say how long clients may keep it (for example Cache-Control: max-age=3600)")
	}
}

// jsonDocument prepares a JSON document for a strict reader: comments and trailing
// commas relaxed (with a warning), a syntax error reported (ok false), the positions
// of its pointers, and its URL when file is one.
func (l *linter) jsonDocument(file string, data []byte) (_ []byte, pos *jsonPositions, srcURL string, ok bool) {
	data = l.relaxJSON(file, data)
	if !json.Valid(data) {
		l.jsonSyntax(file, data)
		return nil, nil, "", false
	}
	if isURL(file) {
		srcURL = file
	}
	return data, newJSONPositions(data), srcURL, true
}

// lintAICatalog checks an AI Catalog strictly (aicatalog.Strict), the cards it holds
// inline, and the trust manifests of its entries; for a fetched catalog (file is its
// URL), also the cards it lists by URL, fetched (on another origin only with
// Options.FetchCrossOrigin), at most maxCardFetches.
func (l *linter) lintAICatalog(file string, data []byte) {
	data, pos, srcURL, ok := l.jsonDocument(file, data)
	if !ok {
		return
	}
	cat, err := aicatalog.Parse(data, aicatalog.Options{URL: srcURL, Mode: aicatalog.Strict})
	var ve *aicatalog.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, d := range ve.Diagnostics {
			l.addAt(file, pos, d.Where, d.Severity, "catalog-"+d.Code, d.Message)
		}
		// Strict mode rejected it; read it leniently to check its cards all the same.
		if cat, err = aicatalog.Parse(data, aicatalog.Options{URL: srcURL}); err != nil {
			return
		}
	case err != nil:
		l.addAt(file, pos, "", diag.Error, "not-catalog", err.Error())
		return
	default:
		for _, d := range cat.Diagnostics {
			l.addAt(file, pos, d.Where, d.Severity, "catalog-"+d.Code, d.Message)
		}
	}
	origin := ""
	if u, err := url.Parse(srcURL); err == nil && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
	}
	if srcURL != "" {
		l.seenCatalog(srcURL)
	}
	fetches := 0
	for _, e := range cat.Entries {
		var artifact []byte
		kind := map[string]string{aicatalog.TypeMCPServerCard: KindServerCard, aicatalog.TypeAICatalog: KindAICatalog}[e.Type]
		what := map[string]string{KindServerCard: "the card", KindAICatalog: "the nested catalog"}[kind]
		switch {
		case kind == "":
		case e.Data != nil && kind == KindServerCard:
			artifact = e.Data
			l.lintCardIn(file, pos, e.Pointer+"/data", e.Data, srcURL)
		case e.Data != nil:
			artifact = e.Data
			l.lintCatalogIn(file, pos, e.Pointer+"/data", e.Data, srcURL)
		case srcURL == "":
			l.addAt(file, pos, e.Pointer+"/url", diag.Warning, "not-checked",
				fmt.Sprintf("%s of %s is listed by URL: not fetched from a file (lint the published catalog by URL to check it)", what, quoteClean(e.Identifier)))
		case origin != "" && !sameOrigin(e.URL, origin) && !l.opts.FetchCrossOrigin:
			l.addAt(file, pos, e.Pointer+"/url", diag.Warning, "not-checked",
				fmt.Sprintf("%s of %s is on another origin (%s): not fetched without consent; run with --yes to check it", what, quoteClean(e.Identifier), discovery.Redact(e.URL)))
		case kind == KindAICatalog && (l.depth >= maxCatalogDepth || l.seen[discovery.Redact(e.URL)]):
			l.addAt(file, pos, e.Pointer+"/url", diag.Warning, "not-checked",
				fmt.Sprintf("the nested catalog %s is not checked: it was checked already (a cycle), or it is nested deeper than %d catalogs", discovery.Redact(e.URL), maxCatalogDepth))
		case fetches >= maxCardFetches:
			if fetches == maxCardFetches {
				l.addAt(file, pos, "/entries", diag.Warning, "not-checked", fmt.Sprintf("the catalog lists more than %d cards and catalogs by URL: the others were not fetched", maxCardFetches))
			}
			fetches++
		default:
			fetches++
			l.depth++
			artifact = l.lintEntryURL(e.URL, kind)
			l.depth--
		}
		if e.TrustManifest != nil {
			l.checkTrust(file, pos, e, artifact, origin)
		}
	}
}

// maxCatalogDepth bounds how deep lint follows nested catalogs by URL: the catalog
// linted and the catalogs it lists, not theirs.
const maxCatalogDepth = 1

// seenCatalog records that the catalog at rawURL is being checked, so that a nested
// catalog listing it again (a cycle) is not fetched.
func (l *linter) seenCatalog(rawURL string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[discovery.Redact(rawURL)] = true
}

// lintCatalogIn checks a catalog held inline in another, at ptr, strictly: its
// problems are located in the outer catalog. Its own entries are not followed.
func (l *linter) lintCatalogIn(file string, pos *jsonPositions, ptr string, data []byte, srcURL string) {
	_, err := aicatalog.Parse(data, aicatalog.Options{URL: srcURL, Mode: aicatalog.Strict})
	var ve *aicatalog.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, d := range ve.Diagnostics {
			l.addAt(file, pos, ptr+d.Where, d.Severity, "catalog-"+d.Code, "inline nested catalog: "+d.Message)
		}
	case err != nil:
		l.addAt(file, pos, ptr, diag.Error, "not-catalog", "inline nested catalog: "+err.Error())
	}
}

// lintCardIn checks a card held inline in a catalog, at ptr: its problems are
// located in the catalog.
func (l *linter) lintCardIn(file string, pos *jsonPositions, ptr string, data []byte, srcURL string) {
	card, err := servercard.Parse(data, servercard.Options{URL: srcURL, Mode: servercard.Strict})
	l.cardProblems(card, err, func(where string, sev diag.Severity, code, msg string) {
		l.addAt(file, pos, ptr+where, sev, code, "inline server card: "+msg)
	})
}

// lintEntryURL fetches the card or nested catalog (kind) at rawURL, lints it as a
// document of its own and returns its bytes (nil when it could not be read).
func (l *linter) lintEntryURL(rawURL, kind string) []byte {
	file := discovery.Redact(rawURL)
	accept := servercard.MediaType
	if kind == KindAICatalog {
		accept = aicatalog.MediaType
	}
	res, err := l.fetchAs(rawURL, accept)
	var cr *crossRedirect
	switch {
	case err != nil && l.outOfTime():
		l.outOfTimeFile(file)
		return nil
	case errors.As(err, &cr):
		l.addFile(file, kind)
		l.add(Problem{File: file, Severity: diag.Error, Code: "cross-origin-redirect", Message: cr.message()})
		return nil
	case err != nil:
		l.addFile(file, kind)
		l.add(Problem{File: file, Severity: diag.Error, Code: "fetch", Message: err.Error()})
		return nil
	case !res.published():
		l.addFile(file, kind)
		l.add(Problem{File: file, Severity: diag.Error, Code: "not-published", Message: fmt.Sprintf("the catalog lists a %s here, but the URL answers HTTP %d %s", kind, res.status, termtext.Clean(res.ctype, 64))})
		return nil
	}
	l.checkServed(file, kind, &res)
	_ = l.lintDoc(file, kind, res.data, "") // a card's or catalog's lint returns no error
	return res.data
}

// lintServerCard checks a Server Card strictly (servercard.Strict): the JSON Schema
// written from the extension's definitions, and what Strict mode adds.
func (l *linter) lintServerCard(file string, data []byte) {
	data, pos, srcURL, ok := l.jsonDocument(file, data)
	if !ok {
		return
	}
	card, err := servercard.Parse(data, servercard.Options{URL: srcURL, Mode: servercard.Strict})
	l.cardProblems(card, err, func(where string, sev diag.Severity, code, msg string) {
		l.addAt(file, pos, where, sev, code, msg)
	})
}

// cardProblems hands at every problem of a card Parse read (card, err).
func (l *linter) cardProblems(card *servercard.Card, err error, at func(where string, sev diag.Severity, code, msg string)) {
	var ve *servercard.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, d := range ve.Diagnostics {
			at(d.Where, d.Severity, "card-"+d.Code, d.Message)
		}
	case err != nil:
		at("", diag.Error, "not-card", err.Error())
	default:
		for _, d := range card.Diagnostics {
			at(d.Where, d.Severity, "card-"+d.Code, d.Message)
		}
	}
}

// checkTrust says whether the trust manifest of entry e is signed and, with
// Options.TrustRoots, whether it verifies. artifact is the entry's artifact when
// lint read it (an inline or fetched card), for the manifest's provenance digest.
// Without roots nothing can be verified: that is said as info (shown with
// --explain); a manifest that fails against the roots given is an error.
func (l *linter) checkTrust(file string, pos *jsonPositions, e aicatalog.Entry, artifact []byte, origin string) {
	ptr := e.Pointer + "/trustManifest"
	id := quoteClean(e.Identifier)
	if e.TrustManifest.Signature == "" {
		l.addAt(file, pos, ptr, diag.Info, "trust-manifest", "the trust manifest of "+id+" parses and is not signed: its claims are advisory")
		return
	}
	exp := trust.Expect{Identifier: e.Identifier, Origin: origin, Artifact: artifact}
	if artifact == nil {
		exp.Artifact = []byte{} // not read: a provenance digest cannot match it
	}
	res, err := trust.Verify(l.ctx, e.TrustManifest.Raw, exp, &trust.Options{Roots: l.opts.TrustRoots})
	signer := "kid " + strconv.Quote(termtext.Clean(res.KeyID, 128))
	if res.KeyID == "" {
		signer = "a key without kid"
	}
	switch {
	case err == nil:
		l.addAt(file, pos, ptr, diag.Info, "trust-manifest", fmt.Sprintf("the trust manifest of %s is signed by %s and verified: publisher %s", id, signer, quoteClean(res.Publisher)))
	case len(l.opts.TrustRoots) == 0 && errors.Is(err, trust.ErrUntrusted):
		l.addAt(file, pos, ptr, diag.Info, "trust-manifest", fmt.Sprintf("the trust manifest of %s is signed by %s, not verified: no trust roots given", id, signer))
	case len(l.opts.TrustRoots) == 0:
		l.addAt(file, pos, ptr, diag.Warning, "trust-manifest", fmt.Sprintf("the trust manifest of %s is signed, but cannot be verified: %s", id, termtext.Clean(res.Reason, 256)))
	default:
		l.addAt(file, pos, ptr, diag.Error, "trust-manifest", fmt.Sprintf("the trust manifest of %s does not verify against the trust roots given: %s", id, termtext.Clean(res.Reason, 256)))
	}
}

// addAt adds a problem located by a JSON pointer into the document of pos.
func (l *linter) addAt(file string, pos *jsonPositions, ptr string, sev diag.Severity, code, msg string) {
	line, col := pos.lineCol(ptr)
	l.add(Problem{File: file, Line: line, Column: col, Pointer: ptr, Severity: sev, Code: code, Message: msg})
}

// jsonSyntax reports where data stops being JSON.
func (l *linter) jsonSyntax(file string, data []byte) {
	line, col := 1, 1
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(data, new(any)), &se) {
		line, col = offsetLineCol(data, int(se.Offset))
	}
	l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: "syntax", Message: "not well-formed JSON"})
}

// quoteClean quotes a string from a document, cleaned, for a message.
func quoteClean(s string) string { return strconv.Quote(termtext.Clean(s, 128)) }
