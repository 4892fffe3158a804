//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// words is the vocabulary of generated prose: varied enough that no two lines repeat.
var words = strings.Fields(`account invoice refund ticket status order customer report export import
schedule deploy review token session limit page request response archive folder search filter
read write update delete create approve confirm notify retry backoff region project member team
billing payment webhook event queue worker build release version branch commit merge label`)

// prose returns n words of seeded pseudo-random text.
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// fill repeats block (called with a counter) until the text reaches size bytes, then
// cuts it at the last line end before size: every document is within a few hundred
// bytes of its nominal size.
func fill(size int, head string, block func(i int) string) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString(head)
	for i := 0; b.Len() < size; i++ {
		b.WriteString(block(i))
	}
	s := b.String()[:size]
	if j := strings.LastIndexByte(s, '\n'); j > len(head) {
		s = s[:j+1]
	}
	return []byte(s)
}

// A shape is one family of generated documents of a reader: gen returns a document of
// about size bytes.
type shape struct {
	name string
	gen  func(size int) []byte
}

// skillsShapes are skills.md documents: a realistic guide (sections of prose, steps,
// rules, endpoints, code, tables and links, all varied) and the adversarial shapes:
// deep nesting, one long line, many headings, many list items in a safety section.
func skillsShapes() []shape {
	return []shape{
		{"guide", func(size int) []byte {
			r := rand.New(rand.NewPCG(1, 2))
			return fill(size, "# Acme API guide\n\nThis site offers an API for tickets and billing.\n\n", func(i int) string {
				switch i % 6 {
				case 0:
					return fmt.Sprintf("## %s %d\n\n%s.\n\n", title(prose(r, 2)), i, prose(r, 40))
				case 1:
					return fmt.Sprintf("## Steps %d\n\n1. %s.\n2. Call `GET /v1/%s/%d` with `Authorization: Bearer $TOKEN`.\n3. %s.\n\n", i, prose(r, 8), words[r.IntN(len(words))], i, prose(r, 10))
				case 2:
					return fmt.Sprintf("## Safety %d\n\n- Never %s without asking.\n- Ask before you %s.\n- You may %s freely.\n\n", i, prose(r, 4), prose(r, 3), prose(r, 3))
				case 3:
					return fmt.Sprintf("## Endpoints %d\n\n| Method | Path | Purpose |\n|---|---|---|\n| GET | /v1/%s | %s |\n| POST | /v1/%s | %s |\n\n", i, words[r.IntN(len(words))], prose(r, 5), words[r.IntN(len(words))], prose(r, 5))
				case 4:
					return fmt.Sprintf("```sh\ncurl -s https://api.acme.example/v1/%s/%d | jq .\n```\n\n", words[r.IntN(len(words))], i)
				default:
					return fmt.Sprintf("See [the %s docs](https://docs.acme.example/%s/%d) and <https://status.acme.example/%d>.\n\n", prose(r, 2), words[r.IntN(len(words))], i, i)
				}
			})
		}},
		{"nested quotes and lists", func(size int) []byte {
			return fill(size, "# Deep\n\n", func(i int) string {
				return strings.Repeat("> ", 1+i%40) + strings.Repeat("  ", i%20) + "- item\n"
			})
		}},
		{"long line", func(size int) []byte {
			r := rand.New(rand.NewPCG(3, 4))
			return append(fill(size-1, "", func(int) string { return prose(r, 8) + " " }), '\n')
		}},
		{"emphasis openers on one line", func(size int) []byte {
			return append([]byte(strings.Repeat("*a", (size-1)/2)), '\n')
		}},
		{"open brackets on one line", func(size int) []byte {
			return append([]byte(strings.Repeat("[", size-1)), '\n')
		}},
		{"many headings", func(size int) []byte {
			return fill(size, "", func(i int) string { return fmt.Sprintf("%s h%d\n", strings.Repeat("#", 1+i%6), i) })
		}},
		{"safety items", func(size int) []byte {
			return fill(size, "## Safety\n", func(i int) string { return "- ask\n" })
		}},
		{"list items", func(size int) []byte {
			r := rand.New(rand.NewPCG(5, 6))
			return fill(size, "## Steps\n", func(i int) string { return "- " + prose(r, 3) + "\n" })
		}},
	}
}

// mcpShapes are mcp.json documents: many servers with tools (realistic), deep
// nesting, one long string, many keys in one object.
func mcpShapes() []shape {
	return []shape{
		{"servers", func(size int) []byte {
			r := rand.New(rand.NewPCG(7, 8))
			return closeJSON(fill(size-8, "{\"servers\": [\n", func(i int) string {
				return fmt.Sprintf("  {\"name\": \"%s-%d\", \"url\": \"https://mcp.acme.example/%s/%d\", \"transport\": \"http\", \"description\": %q, \"tools\": [\"get_%s\", \"list_%s\"]},\n",
					words[r.IntN(len(words))], i, words[r.IntN(len(words))], i, prose(r, 8), words[r.IntN(len(words))], words[r.IntN(len(words))])
			}), ",\n", "\n]}\n")
		}},
		{"deep nesting", func(size int) []byte {
			n := (size - 40) / 16
			return []byte(`{"servers": [{"name": "x", "meta": ` + strings.Repeat(`{"a": [`, n) + "1" + strings.Repeat("]}", n) + "}]}\n")
		}},
		{"long string", func(size int) []byte {
			return []byte(`{"servers": [{"name": "x", "url": "https://a.example/mcp", "description": "` + strings.Repeat("word ", (size-80)/5) + "\"}]}\n")
		}},
		{"many keys", func(size int) []byte {
			return closeJSON(fill(size-8, `{"servers": [{"name": "x", "url": "https://a.example/mcp"`, func(i int) string {
				return fmt.Sprintf(", \"k%d\": %d\n", i, i)
			}), "\n", "}]}\n")
		}},
	}
}

// closeJSON cuts the trailing separator sep of a generated list and appends end.
func closeJSON(b []byte, sep, end string) []byte {
	s := strings.TrimSuffix(strings.TrimRight(string(b), "\n")+"\n", sep)
	s = strings.TrimRight(s, ",\n")
	return []byte(s + end)
}

// catalogShapes are AI Catalog documents: many linked entries, and entries with
// inline data.
func catalogShapes() []shape {
	return []shape{
		{"entries", func(size int) []byte {
			r := rand.New(rand.NewPCG(9, 10))
			return closeJSON(fill(size-8, "{\"specVersion\": \"1.0\", \"host\": {\"displayName\": \"Acme\"}, \"entries\": [\n", func(i int) string {
				return fmt.Sprintf("  {\"identifier\": \"urn:air:acme.example:mcp:%s-%d\", \"type\": \"application/mcp-server-card+json\", \"url\": \"https://acme.example/mcp/%d/card.json\", \"description\": %q, \"tags\": [%q, %q]},\n",
					words[r.IntN(len(words))], i, i, prose(r, 6), words[r.IntN(len(words))], words[r.IntN(len(words))])
			}), ",\n", "\n]}\n")
		}},
		{"inline data", func(size int) []byte {
			r := rand.New(rand.NewPCG(11, 12))
			return closeJSON(fill(size-8, "{\"specVersion\": \"1.0\", \"host\": {\"displayName\": \"Acme\"}, \"entries\": [\n", func(i int) string {
				return fmt.Sprintf("  {\"identifier\": \"urn:air:acme.example:mcp:%d\", \"type\": \"application/mcp-server-card+json\", \"data\": {\"name\": \"com.acme/%d\", \"version\": \"1.0.0\", \"description\": %q, \"remotes\": [{\"type\": \"streamable-http\", \"url\": \"https://acme.example/mcp/%d\"}]}},\n",
					i, i, prose(r, 30), i)
			}), ",\n", "\n]}\n")
		}},
	}
}

// index returns an Agent Skills index (v0.2.0) of n entries, skill-md and archive.
func index(n int) []byte {
	r := rand.New(rand.NewPCG(13, 14))
	var b strings.Builder
	b.WriteString("{\"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\", \"skills\": [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		name := fmt.Sprintf("%s-%d", words[r.IntN(len(words))], i)
		digest := fmt.Sprintf("sha256:%064x", r.Uint64())
		if i%4 == 3 {
			fmt.Fprintf(&b, "  {\"name\": %q, \"type\": \"archive\", \"description\": %q, \"url\": \"/.well-known/agent-skills/%s.tar.gz\", \"digest\": %q}", name, prose(r, 12)+".", name, digest)
		} else {
			fmt.Fprintf(&b, "  {\"name\": %q, \"type\": \"skill-md\", \"description\": %q, \"url\": \"/.well-known/agent-skills/%s/SKILL.md\", \"digest\": %q}", name, prose(r, 12)+".", name, digest)
		}
	}
	b.WriteString("\n]}\n")
	return []byte(b.String())
}

// title upper-cases the first letter of an ASCII text.
func title(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
