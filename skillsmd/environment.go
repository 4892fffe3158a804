package skillsmd

import "strings"

// Guides often state the API base once per environment: "**Production URL:** x", a
// table with Production, Staging and Local rows, bold bullets under a heading
// ("- **Mainnet**: x", "- **Testnet**: y"). The production environment's URL is the
// API base; the others (staging, test networks, a local server) are not.

// productionWords are the first words of a label that names the production
// environment.
var productionWords = map[string]bool{"production": true, "prod": true, "mainnet": true}

// environmentRest are the words that may follow an environment's name in its label
// ("Production API base URL").
var environmentRest = map[string]bool{"api": true, "base": true, "url": true, "uri": true, "endpoint": true,
	"host": true, "server": true, "environment": true, "env": true, "network": true, "root": true}

// productionLabel reports a label ("Production URL", "**Mainnet**", "Prod API") that
// names the production environment, alone or followed by words that say URL.
func productionLabel(label string) bool {
	label = strings.Trim(strings.TrimSpace(label), "*_`")
	if len(label) == 0 || len(label) > 40 {
		return false
	}
	words := strings.Fields(strings.ToLower(label))
	if len(words) == 0 || !productionWords[words[0]] {
		return false
	}
	for _, w := range words[1:] {
		if !environmentRest[strings.Trim(w, "()")] {
			return false
		}
	}
	return true
}

// scanProductionLabel reads a line that states the production environment's URL
// ("Production URL: https://x", "Mainnet: https://x"): a candidate for the API base,
// as strong as a "Base URL" label.
func (p *parser) scanProductionLabel(l string, tier int) {
	s := strings.TrimSpace(l)
	if s == "" || !productionWords[firstWordLower(s)] {
		return // most lines: one word compared
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || i > 40 || !productionLabel(s[:i]) {
		return
	}
	if v, _ := baseValue(s[i+1:]); v != "" && plausibleBase(v) {
		p.addBase(v, tier, 2, fromEnvironment)
	}
}

// firstWordLower returns the first word of s, up to a blank, ':' or '*', in lower case.
func firstWordLower(s string) string {
	s = strings.TrimLeft(s, "*_`-+ ")
	end := strings.IndexAny(s, " :*_`")
	if end < 0 {
		end = len(s)
	}
	if end > 12 {
		return ""
	}
	return strings.ToLower(s[:end])
}

// statesProduction reports text one of whose lines starts with a production label's
// first word ("Production URL: x"): scanLines reads its lines.
func statesProduction(text string) bool {
	for line := range strings.Lines(text) {
		if productionWords[firstWordLower(line)] {
			return true
		}
	}
	return false
}

// sitePhrases say a sentence speaks of the site serving the document.
var sitePhrases = [...]string{"this site", "this website", "this origin", "this domain", "this server", "this host", "same origin"}

// originPathBase reads a base stated in prose as a path of the origin serving the
// document ("The API is this site's `/api`", "the API is served by this site under
// /api"): the path, with the weakest strength. Any label, row, heading or frontmatter
// key outranks it, and it outranks every inferred base, such as the localhost URL of
// an install script's variable. Only paragraphs holding "API" are read further.
func (p *parser) originPathBase(t string, tier int) {
	if len(t) < 16 || !strings.Contains(t, "API") {
		return
	}
	for rest := t; rest != ""; {
		var s string
		if i := strings.IndexAny(rest, "\n"); i >= 0 {
			s, rest = rest[:i], rest[i+1:]
		} else {
			s, rest = rest, ""
		}
		for _, sent := range strings.SplitAfter(s, ". ") {
			l := strings.ToLower(sent)
			if !strings.Contains(l, "the api") || conditional(l) || strings.Contains(l, " not ") {
				continue
			}
			site := false
			for _, ph := range sitePhrases {
				site = site || strings.Contains(l, ph)
			}
			if !site {
				continue
			}
			for _, f := range strings.Fields(sent) {
				w := strings.TrimRight(strings.Trim(strings.TrimRight(f, ".,;:!?)"), "`\"'("), ".,;:")
				if strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "//") && len(w) > 1 && plausibleBase(w) &&
					!pageURL(w) && !isDocumentName(lastSegment(w)) {
					p.addBase(w, tier, 1, fromProse)
					return
				}
			}
		}
	}
}
