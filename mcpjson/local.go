package mcpjson

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// localCommand returns the command line an entry gives for running the server
// locally, for display: "command" and "args", a "commands" list, a "package", a
// "stdio" line, an "install" or "run" line that starts with a launcher (npx, uvx,
// docker...), or a transport object with a command. "" when there is none.
func localCommand(o map[string]any) string {
	if c := commandLine(o); c != "" {
		return c
	}
	if t, ok := o["transport"].(map[string]any); ok {
		if c := commandLine(t); c != "" {
			return c
		}
		if st, ok := t["stdio"].(map[string]any); ok {
			return commandLine(st)
		}
	}
	return ""
}

// commandLine reads command, args, commands, package, stdio, install and run from one
// object: a "command" (a "claude mcp add … -- cmd" line gives its cmd), a "commands"
// list, a launcher line under one of runKeys, a package under one of registryKeys or
// "package" (a name, or {"registry": "npm", "name": ...}). A "package" beside
// "language" or "framework" names the library a server is built with, not one to run.
func commandLine(o map[string]any) string {
	// Each step returns done when it decides the answer (which may be "").
	if c, done := explicitCommand(o); done {
		return c
	}
	if c, done := commandsList(o); done {
		return c
	}
	if c, done := runKeysCommand(o); done {
		return c
	}
	if c, done := registryKeysCommand(o); done {
		return c
	}
	if c, done := packageKeyCommand(o); done {
		return c
	}
	if c, done := runLineKeysCommand(o); done {
		return c
	}
	c, _ := startObjectCommand(o)
	return c
}

// explicitCommand reads "command" and "args" (a "claude mcp add … -- cmd" line gives
// its cmd).
func explicitCommand(o map[string]any) (string, bool) {
	c := str(o, "command")
	if c == "" {
		return "", false
	}
	if cmd, _ := claudeAdd(c); cmd != "" {
		return cmd, true
	}
	args := o["args"]
	if args == nil {
		args = firstOf(o, "baseArgs", "base_args") // a client catalogue's preset arguments
	}
	return strings.TrimSpace(c + " " + strings.Join(strs(args), " ")), true
}

// commandsList reads a "commands" list (of lines or command objects) or line.
func commandsList(o map[string]any) (string, bool) {
	switch t := o["commands"].(type) {
	case []any:
		for _, e := range t {
			switch x := e.(type) {
			case string:
				if s := strings.TrimSpace(x); s != "" {
					return s, true
				}
			case map[string]any:
				if c := commandLine(x); c != "" {
					return c, true
				}
				for _, k := range sortedKeys(x) { // {"python3": ["server.py"]}
					return strings.TrimSpace(k + " " + strings.Join(strs(x[k]), " ")), true
				}
			}
		}
	case string:
		return strings.TrimSpace(t), true
	}
	return "", false
}

// runKeysCommand reads a launcher line under one of runKeys, or an object there that
// gives a command or launcher lines.
func runKeysCommand(o map[string]any) (string, bool) {
	for _, k := range runKeys {
		switch t := o[k].(type) {
		case string:
			if c := runLine(t); c != "" {
				return c, true
			}
		case map[string]any: // "stdio": {"command": ...}, or "run": {"npx": "npx -y pkg", "node": "..."}
			if has(t, "command") || has(t, "commands") {
				return commandLine(t), true
			}
			for _, l := range []string{"npx", "uvx", "pipx", "docker", "bunx"} {
				if s := str(t, l); launcherLine(s) {
					return s, true
				}
			}
			for _, kk := range sortedKeys(t) {
				if c := runLine(str(t, kk)); c != "" {
					return c, true
				}
			}
		}
	}
	return "", false
}

// registryKeysCommand reads a package under one of registryKeys.
func registryKeysCommand(o map[string]any) (string, bool) {
	for _, k := range registryKeys {
		if c := registryCommand(k.registry, o[k.key]); c != "" {
			return c, true
		}
	}
	return "", false
}

// packageKeyCommand reads "package": a name, or {"registry": "npm", "name": ...}. A
// "package" beside "language" or "framework" names the library a server is built
// with, not one to run.
func packageKeyCommand(o map[string]any) (string, bool) {
	// {"package": "Acme.Mcp", "language": "C#"} names the implementation, not a run.
	implementation := has(o, "language") || has(o, "framework")
	switch p := o["package"].(type) {
	case string:
		if p = strings.TrimSpace(p); p != "" && !strings.Contains(p, "://") && !implementation { // a package page URL is no command
			return p, true
		}
	case map[string]any: // {"registry": "npm", "name": "@acme/x-mcp", "install": "npx -y @acme/x-mcp"}
		if c := firstString(runLine(str(p, "install")), runLine(str(p, "command")), runLine(str(p, "run"))); c != "" {
			return c, true
		}
		q := map[string]any{"registryType": firstString(str(p, "registryType"), str(p, "registry"), str(p, "registry_name"),
			str(p, "ecosystem"), str(p, "type")), "identifier": firstString(str(p, "identifier"), str(p, "name")), "version": str(p, "version")}
		if id := str(q, "identifier"); id != "" && !strings.Contains(id, "://") {
			return packageCommand(q), true
		}
	}
	return "", false
}

// runLineKeysCommand reads a launcher line under one of runLineKeys.
func runLineKeysCommand(o map[string]any) (string, bool) {
	for _, k := range runLineKeys {
		if c := runLine(str(o, k)); c != "" {
			return c, true
		}
	}
	return "", false
}

// startObjectCommand reads {"startCommand": {"type": "stdio", "command": "python",
// "args": ["-m", "x_mcp"]}} (Smithery's start command): an object under one of
// startObjectKeys that runs the server over stdio.
func startObjectCommand(o map[string]any) (string, bool) {
	for _, k := range startObjectKeys {
		if t, ok := o[k].(map[string]any); ok && str(t, "command") != "" &&
			(launcherLine(str(t, "command")) || normalizeTransport(firstString(str(t, "type"), str(t, "transport"))) == TransportStdio) {
			return commandLine(t), true
		}
	}
	return "", false
}

// startObjectKeys are the keys whose object value may give the command that starts
// the server: {"command", "args"} with a launcher or a stdio type.
var startObjectKeys = []string{"startCommand", "start_command", "start", "launch", "run_command", "runCommand",
	"entrypoint", "launchCommand", "launch_command"}

// runKeys are the keys of an object whose string value may be the command line that
// runs its server (a launcher line, or a "claude mcp add … -- cmd" line).
var runKeys = []string{"stdio", "install", "run", "npx", "uvx"}

// runLineKeys are further keys whose string value may be the command line that runs
// the server; a package named beside them is preferred.
var runLineKeys = []string{"start", "serve", "entrypoint", "launch", "exec", "cli", "install_command", "installCommand",
	"run_command", "runCommand", "start_command", "startCommand", "quickstart", "usage"}

// registryKeys are the keys whose value names the package of a server in a registry
// ("npm": "@acme/x-mcp", "pypi": "x-mcp", "docker": {"image": ...}): run locally with
// the registry's runner (see packageCommand).
var registryKeys = []struct{ key, registry string }{
	{"npm", "npm"}, {"npm_package", "npm"}, {"npmPackage", "npm"}, {"npx", "npm"}, {"pypi", "pypi"},
	{"pypi_package", "pypi"}, {"pypiPackage", "pypi"}, {"pip", "pypi"}, {"uvx", "pypi"}, {"docker", "oci"},
	{"docker_image", "oci"}, {"dockerImage", "oci"}, {"nuget", "nuget"},
}

// registryCommand is the command line that runs the package v names in registry: a
// launcher line as published, or a bare name ("@acme/x-mcp", {"image": ...}, {"name":
// ...}) run by the registry's runner. "" for a URL (a package page) or anything else.
func registryCommand(registry string, v any) string {
	var id string
	switch t := v.(type) {
	case string:
		id = t
	case map[string]any:
		if c := firstString(runLine(str(t, "command")), runLine(str(t, "install")), runLine(str(t, "run"))); c != "" {
			return c
		}
		id = firstString(str(t, "image"), str(t, "package"), str(t, "identifier"), str(t, "name"))
	}
	id = strings.TrimSpace(id)
	switch {
	case id == "", strings.Contains(id, "://"):
		return ""
	case strings.ContainsAny(id, " \t"):
		return runLine(id) // "pip install x-mcp", "npx -y x-mcp"
	}
	return packageCommand(map[string]any{"registryType": registry, "identifier": id})
}

// runLine returns s when it is a command line that runs a server (it starts with a
// launcher: npx, uvx, docker...), the command of a "claude mcp add … -- cmd" line, or "".
func runLine(s string) string {
	s = strings.TrimSpace(s)
	if launcherLine(s) {
		return s
	}
	cmd, _ := claudeAdd(s)
	return cmd
}

// claudeAdd reads a "claude mcp add" line: the local command after " -- " ("claude mcp
// add geo -- node ./dist/mcp.js"), or the remote URL of "claude mcp add --transport
// http name https://x/mcp". Both are "" for any other line.
func claudeAdd(line string) (cmd, remote string) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "claude" || f[1] != "mcp" || f[2] != "add" {
		return "", ""
	}
	if _, after, ok := strings.Cut(line, " -- "); ok {
		return strings.TrimSpace(after), ""
	}
	for _, w := range f[3:] {
		if strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "http://") {
			return "", w
		}
	}
	return "", ""
}

// launchers are the first words of a command line that runs an MCP server locally.
var launchers = map[string]bool{"npx": true, "uvx": true, "pipx": true, "docker": true, "podman": true, "node": true,
	"python": true, "python3": true, "deno": true, "bunx": true, "bun": true, "npm": true, "pnpm": true, "yarn": true,
	"uv": true, "pip": true, "go": true, "cargo": true, "java": true, "dotnet": true, "dnx": true}

func launcherLine(s string) bool {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return launchers[w]
}

// topLocalCommand returns the command line a card gives at its top level for running
// its server locally, and its pointer: a command, a "server" object with a command,
// an "install" line, an "installation", "install" or "config" object with a command
// (or one per transport: {"stdio": {"command": ...}}), an npm or PyPI package name,
// or, last, a run line in install, setup or deployment instructions (see
// localObjectKeys and nestedRun).
func topLocalCommand(v map[string]any) (cmd, ptr string) {
	cmd, ptr, _ = topLocalRun(v)
	return cmd, ptr
}

// topLocalRun is topLocalCommand, and whether the command was found only in install,
// setup or deployment instructions (see localObjectKeys) rather than in the keys that
// describe the card's server: such a command adds no server beside a local one the
// document already lists (a "deploy" section's "docker run" of a server whose stdio
// transport is given).
func topLocalRun(v map[string]any) (cmd, ptr string, instructions bool) {
	cmd = localCommand(v)
	if cmd == "" {
		for _, f := range flatKeys {
			if s := strings.TrimSpace(str(v, f.key)); launcherLine(s) {
				cmd, ptr = s, "/"+f.key
				break
			}
		}
	}
	if cmd == "" {
		if s, ok := v["server"].(map[string]any); ok {
			cmd, ptr = localCommand(s), "/server"
		}
	}
	if cmd == "" {
		if in, ok := v["install"].(map[string]any); ok {
			for _, k := range []string{"primary", "npm", "command"} {
				if c := firstString(str(in[k], "command"), str(in, k)); launcherLine(c) {
					cmd, ptr = c, "/install"
					break
				}
			}
		}
	}
	if cmd == "" { // {"installation": {"stdio": {"command": ...}}}, {"config": {"command": ...}}, {"usage": {"command": ...}}
		for _, k := range []string{"usage", "installation", "install", "config"} {
			in, ok := v[k].(map[string]any)
			if !ok {
				continue
			}
			if c := commandLine(in); c != "" && (k == "config" || has(in, "command")) {
				cmd, ptr = c, "/"+k
				break
			}
			for _, kk := range append([]string{"stdio"}, sortedKeys(in)...) { // stdio is the plain local run
				if c := str(in[kk], "command"); c != "" {
					cmd, ptr = commandLine(in[kk].(map[string]any)), "/"+k+"/"+pointerToken(kk)
					break
				}
			}
			if cmd != "" {
				break
			}
		}
	}
	if cmd == "" {
		if in, ok := firstOf(v, "installation", "install").(map[string]any); ok {
			if p := str(in, "npm"); p != "" {
				cmd, ptr = "npx -y "+p, "/installation/npm"
			} else if p := str(in, "pypi"); p != "" {
				cmd, ptr = "uvx "+p, "/installation/pypi"
			}
		}
	}
	if cmd == "" { // {"setup": {"claude_desktop": {"mcpServers": {...}}}}, {"deployment": {"start": "node server.mjs"}}
		for _, k := range localObjectKeys {
			if c := nestedRun(v[k], 2, strongLocal[k]); c != "" {
				return c, "/" + k, true
			}
		}
	}
	return cmd, ptr, false
}

// localObjectKeys are the top-level keys whose value (an object, a list or a line)
// may say how to run the server locally: install and setup instructions, client
// configurations, a deployment's start command, a container image.
var localObjectKeys = []string{"install", "installation", "usage", "config", "local", "mcp", "connection", "runtime",
	"deployment", "deploy", "self_hosted", "selfHosted", "self_host", "selfHost", "hosting", "docker", "container", "setup",
	"configuration", "quickstart", "quick_start", "getting_started", "gettingStarted", "cli", "clients", "client_config",
	"clientConfig", "client_configs", "clientConfigs", "client_setup", "clientSetup", "integrations", "distribution",
	"launch", "start"}

// strongLocal are the localObjectKeys that describe the local server itself: any
// command there runs it. Under the others a command counts only when it starts with a
// launcher (npx, uvx, docker...) or the object says its transport is stdio: a
// deployment's "command" may be a build step.
var strongLocal = map[string]bool{"local": true, "mcp": true, "connection": true, "runtime": true}

// nestedRun finds the command line that runs the server in v, an install, setup or
// deployment value (see localObjectKeys): a launcher line, an object's own command (see
// commandLine), a member keyed by client or transport ({"claude_desktop": {"command":
// ...}}, {"stdio": ...}), the first command of an "mcpServers" snippet, or the first of
// a list of these. depth bounds the nesting read.
func nestedRun(v any, depth int, strong bool) string {
	if c := nestedCommand(v, depth, strong); bridgeURL(c) == "" {
		return c
	}
	return "" // "npx mcp-remote https://x/mcp" connects to a remote endpoint; it runs no server
}

func nestedCommand(v any, depth int, strong bool) string {
	switch t := v.(type) {
	case string:
		return runLine(t)
	case []any:
		for _, e := range t {
			if c := nestedRun(e, depth, strong); c != "" {
				return c
			}
		}
	case map[string]any:
		if c := commandLine(t); c != "" && bridgeURL(c) == "" && (strong || launcherLine(c) || runnerPackage(c) != "" ||
			normalizeTransport(firstString(str(t, "type"), str(t, "transport"))) == TransportStdio) {
			return c
		}
		if m, ok := t["mcpServers"].(map[string]any); ok { // a client configuration snippet: any command
			for _, k := range sortedKeys(m) {
				if e, ok := m[k].(map[string]any); ok {
					if c := localCommand(e); c != "" && bridgeURL(c) == "" {
						return c
					}
				}
			}
		}
		if depth == 0 {
			return ""
		}
		if c := nestedRun(t["stdio"], depth-1, true); c != "" {
			return c
		}
		for _, k := range sortedKeys(t) {
			if k != "stdio" && k != "mcpServers" {
				if c := nestedRun(t[k], depth-1, strong); c != "" {
					return c
				}
			}
		}
	}
	return ""
}

// topLocal reads a local manifest at the top level of a card: a command, a package,
// a "run" or "install" line, a "server" or "transport" object with a command, or a
// stdio transport beside a name.
func (r *reader) topLocal(v map[string]any, base Server) {
	cmd, ptr, instructions := topLocalRun(v)
	if instructions {
		for _, s := range r.Servers {
			if s.LocalOnly {
				return // the document's local server is already listed
			}
		}
	}
	if cmd == "" {
		if (stdioTransport(v["transport"]) || listsStdio(v["transport"]) || listsStdio(v["transports"])) && len(r.Servers) == 0 {
			cmd = firstString(str(v, "package"), str(v, "bin"), str(v, "executable"), str(v, "binary"), base.Name, str(v, "server"))
		}
	}
	if cmd == "" {
		return
	}
	if u := bridgeURL(cmd); u != "" {
		if _, ok := r.byURL[endpointKey(u)]; ok {
			return // "npx mcp-remote https://x/mcp": a local bridge to an endpoint already listed
		}
	}
	if r.unusableBridge(ptr, cmd) {
		return
	}
	s := base
	s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
	r.addLocal(ptr, s)
}

// packages reads the "packages" of a registry server.json: each is a local server,
// shown as the command that would run it. A package never gives a remote endpoint,
// even with an HTTP transport: it listens on the user's machine.
func (r *reader) packages(v map[string]any, base Server) {
	list, _ := v["packages"].([]any)
	cmd, _ := topLocalCommand(v)
	// {"pypi": {"name": ...}}: keyed by registry. Beside a top-level command it is the
	// same server published as a package, not a second one: a reader sees one server.
	if m, ok := v["packages"].(map[string]any); ok && cmd == "" {
		for _, k := range sortedKeys(m) {
			switch strings.ToLower(k) {
			case "npm", "pypi", "oci", "docker", "nuget":
			default:
				continue
			}
			p, ok := m[k].(map[string]any)
			if !ok { // {"npm": "@acme/x-mcp"}
				if cmd := registryCommand(strings.ToLower(k), m[k]); cmd != "" {
					s := base
					s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
					r.addLocal("/packages/"+pointerToken(k), s)
				}
				continue
			}
			q := map[string]any{"registryType": k}
			for kk, e := range p {
				q[kk] = e
			}
			if !has(p, "registryType") {
				q["registryType"] = k
			}
			if cmd := packageCommand(q); cmd != "" {
				s := base
				s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
				r.addLocal("/packages/"+pointerToken(k), s)
			}
		}
	}
	for i, e := range list {
		ptr := fmt.Sprintf("/packages/%d", i)
		p, ok := e.(map[string]any)
		if !ok {
			r.warn(ptr, fmt.Sprintf("package is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		cmd := commandLine(p) // a package entry that gives its own command line
		if cmd == "" || cmd == str(p, "package") {
			cmd = packageCommand(p)
		}
		if cmd == "" {
			r.warn(ptr, "package has no identifier; skipped")
			continue
		}
		s := base
		s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
		if t := normalizeTransport(str(p["transport"], "type")); t != TransportUnknown {
			s.Transport = t
		}
		r.addLocal(ptr, s)
	}
}

// packageCommand is the usual command line for a registry package, for display:
// npm through npx, PyPI through uvx, OCI images through docker, NuGet through dnx.
func packageCommand(p map[string]any) string {
	id, ver := str(p, "identifier"), str(p, "version")
	if id == "" {
		id = str(p, "name")
	}
	if id == "" {
		return ""
	}
	switch strings.ToLower(str(p, "registryType")) {
	case "npm":
		if ver != "" && !strings.Contains(id[1:], "@") {
			id += "@" + ver
		}
		return "npx -y " + id
	case "pypi":
		if ver != "" {
			id += "==" + ver
		}
		return "uvx " + id
	case "oci", "docker":
		if ver != "" && !strings.Contains(id[strings.LastIndex(id, "/")+1:], ":") && !strings.Contains(id, "@") {
			id += ":" + ver
		}
		return "docker run -i --rm " + id
	case "nuget":
		if ver != "" {
			id += "@" + ver
		}
		return "dnx " + id
	}
	return id
}

// addLocal adds a local server once per command line, and once per package run by a
// package runner: "npx -y @acme/cli mcp" (a client config) and "npx -y @acme/cli@0.9.0"
// (the same package in "packages") are one server. So are a command and the same
// command with more options ("acme mcp" and "acme mcp --transport sse --port 8053", one
// server's two transports), and a program and the line that installs or runs its
// package ("acme mcp" and "pipx install acme"). Two different commands of one program
// ("acme serve-a", "acme serve-b") stay two servers.
func (r *reader) addLocal(ptr string, s Server) {
	pk, prog := runnerPackage(s.Command), bareProgram(s.Command)
	if r.byCmd[s.Command] || pk != "" && (r.byCmd["\x00"+pk] || r.byCmd["\x01"+pk]) || prog != "" && r.byCmd["\x00"+prog] {
		return
	}
	for _, c := range r.cmds {
		if extendsCommand(s.Command, c) || extendsCommand(c, s.Command) {
			return
		}
	}
	r.byCmd[s.Command] = true
	r.cmds = append(r.cmds, s.Command)
	if pk != "" {
		r.byCmd["\x00"+pk] = true
	}
	if prog != "" {
		r.byCmd["\x01"+prog] = true
	}
	if u := bridgeURL(s.Command); u != "" {
		r.bridges = append(r.bridges, pendingBridge{ptr: ptr, url: u, s: s})
		return
	}
	r.addServer(ptr, "", s)
}

// settleBridges lists the local bridge commands held back by addLocal, once the whole
// document is read: a bridge to a URL the document also lists as a remote server
// ("url": "https://x.dev/mcp" beside "npx mcp-remote https://x.dev/mcp") is that
// remote server, reached another way, not a local one; any other bridge is listed as
// a local server.
func (r *reader) settleBridges() {
	for _, b := range r.bridges {
		if i, ok := r.byURL[endpointKey(b.url)]; ok && !r.Servers[i].LocalOnly {
			r.warn(b.ptr, "command "+quote(b.s.Command)+" is a local bridge (mcp-remote) to "+quoteURL(b.url)+", which the document lists as a remote server; read as that server, no local server listed")
			continue
		}
		r.addServer(b.ptr, "", b.s)
	}
	r.bridges = nil
}

// extendsCommand reports a command line that is base with more options: base's words,
// then one that starts with "-" ("acme mcp --port 8053" extends "acme mcp").
func extendsCommand(cmd, base string) bool {
	rest, ok := strings.CutPrefix(cmd, base+" ")
	return ok && base != "" && strings.HasPrefix(strings.TrimSpace(rest), "-")
}

// bareProgram returns the program a command line runs when it is a program of its own
// ("acme" for "acme mcp --stdio"), lower-cased: not a launcher (npx, node, python...,
// see launchers), a shell or a path. "" for any other command.
func bareProgram(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	w := strings.ToLower(f[0])
	if launchers[w] || shellWrapper(f) || strings.ContainsAny(w, "/\\.") || !strings.ContainsFunc(w, unicode.IsLetter) {
		return ""
	}
	return w
}

// shellWrapper reports a command line that hands the rest of its words to a shell
// ("cmd /c npx -y pkg", "sh -c ..."): the server is the command after the wrapper.
func shellWrapper(f []string) bool {
	if len(f) < 3 {
		return false
	}
	switch strings.ToLower(f[0]) {
	case "cmd", "cmd.exe":
		return strings.EqualFold(f[1], "/c") || strings.EqualFold(f[1], "/k")
	case "sh", "bash", "zsh":
		return f[1] == "-c" || f[1] == "-lc"
	}
	return false
}

// runnerPackage returns the package a package-runner command line runs ("npx -y
// @acme/cli@0.9.0 mcp" gives "@acme/cli"; "uvx tool==1.2" gives "tool"), without its
// version; "" for any other command.
//
// An install line names its package too ("pip install tool", "uv pip install tool",
// "npm install -g @acme/cli", "cargo install tool"): the server a document lists as a
// registry package and again as the line that installs it is one server.
func runnerPackage(cmd string) string {
	f := strings.Fields(cmd)
	if shellWrapper(f) { // "cmd /c npx -y pkg" runs "npx -y pkg"
		f = f[2:]
	}
	if len(f) < 2 {
		return ""
	}
	switch f[0] {
	case "npx", "bunx", "uvx", "pipx", "dnx":
	case "pip", "pip3", "uv", "npm", "pnpm", "yarn", "bun", "cargo", "go", "gem", "dotnet":
		if !slices.ContainsFunc(f[1:], func(w string) bool { return w == "install" || w == "add" || w == "i" }) {
			return ""
		}
	default:
		return ""
	}
	for _, w := range f[1:] {
		switch w {
		case "run", "install", "add", "i", "pip", "tool", "global", "exec", "dlx":
			continue
		}
		if strings.HasPrefix(w, "-") {
			continue
		}
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return "" // "npm install && npm start"
		}
		if i := strings.LastIndexByte(w, '@'); i > 0 { // npm: "@scope/name@1.2", "name@latest"
			w = w[:i]
		}
		if i := strings.Index(w, "=="); i > 0 { // PyPI: "name==1.2"
			w = w[:i]
		}
		w = strings.ToLower(w)
		if smitheryCLI[w] { // "npx -y @smithery/cli run @acme/x-mcp" runs @acme/x-mcp
			if t := runTarget(strings.Join(f, " ")); t != "" {
				return t
			}
		}
		return w
	}
	return ""
}

// smitheryCLI are the packages of Smithery's CLI, which runs the server it names after
// "run": each server it runs is a package of its own.
var smitheryCLI = map[string]bool{"@smithery/cli": true, "smithery": true}

// runTarget returns the package named after "run" in a command line ("... run
// @acme/x-mcp --key k" gives "@acme/x-mcp"), without its version, lower-cased; or "".
func runTarget(cmd string) string {
	f := strings.Fields(cmd)
	for i, w := range f {
		if w == "run" && i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
			t := f[i+1]
			if j := strings.LastIndexByte(t, '@'); j > 0 {
				t = t[:j]
			}
			return strings.ToLower(t)
		}
	}
	return ""
}

// presetKeys are the top-level keys under which a client's catalogue of servers
// lists them, each with the command that runs it ({"data": [{"id": "github",
// "command": "npx", "baseArgs": ["-y", "@acme/github-mcp"]}]}).
var presetKeys = []string{"data", "presets", "items", "catalog", "catalogue", "entries", "list", "results"}

// presetEntries returns the pointer and object of each entry of v's preset lists (see
// presetKeys) whose command starts with a launcher (npx, uvx, docker...).
func presetEntries(v map[string]any) (ptrs []string, entries []map[string]any) {
	for _, k := range presetKeys {
		list, _ := v[k].([]any)
		for i, e := range list {
			if o, ok := e.(map[string]any); ok && launcherLine(str(o, "command")) {
				ptrs, entries = append(ptrs, fmt.Sprintf("/%s/%d", k, i)), append(entries, o)
			}
		}
	}
	return ptrs, entries
}

// presets reads a client's catalogue of local servers (see presetKeys): one local
// server per entry with a launcher command. A URL beside the command (the server's
// repository or home page) is not an endpoint.
func (r *reader) presets(v map[string]any) {
	ptrs, entries := presetEntries(v)
	for i, o := range entries {
		r.addLocal(ptrs[i], Server{Name: firstString(str(o, "name"), str(o, "id"), str(o, "title")), Description: str(o, "description"),
			LocalOnly: true, Transport: TransportStdio, Command: commandLine(o), Tools: r.topTools(o, ptrs[i])})
	}
}

// localKeys reports a local-only manifest: a command, a package, a run or install
// line, a stdio transport, a server object with a command, or a catalogue of local
// servers.
func localKeys(v map[string]any) bool {
	if cmd, _ := topLocalCommand(v); cmd != "" || has(v["server"], "command") {
		return true
	}
	if ptrs, _ := presetEntries(v); len(ptrs) > 0 {
		return true
	}
	if _, u := flatURL(v); u == "" && !has(v, "remotes") && !has(v, "servers") && !has(v, "mcpServers") &&
		(listsStdio(v["transport"]) || listsStdio(v["transports"])) {
		return true
	}
	return stdioTransport(v["transport"])
}

// listsStdio reports a list of transport names that includes stdio ("transports":
// ["stdio", "shttp"]): without a URL, the server is run locally.
func listsStdio(v any) bool {
	list, _ := v.([]any)
	for _, e := range list {
		if s, _ := e.(string); strings.EqualFold(strings.TrimSpace(s), "stdio") {
			return true
		}
	}
	return false
}

// stdioTransport reports a transport given as "stdio" (or "npm"...), a list of such
// names only, or an object of that type with no URL ({"type": "stdio"}).
func stdioTransport(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return normalizeTransport(firstString(str(t, "type"), str(t, "transport"), str(t, "kind"))) == TransportStdio &&
			transportURL(t) == ""
	case string:
		return normalizeTransport(t) == TransportStdio
	case []any:
		for _, e := range t {
			if s, _ := e.(string); normalizeTransport(s) != TransportStdio {
				return false
			}
		}
		return len(t) > 0
	}
	return false
}

// claudeTransport returns the --transport value of a "claude mcp add" line, or "".
func claudeTransport(line string) string {
	f := strings.Fields(line)
	for i, w := range f {
		if w == "--transport" && i+1 < len(f) {
			return f[i+1]
		}
		if v, ok := strings.CutPrefix(w, "--transport="); ok {
			return v
		}
	}
	return ""
}

// unusableBridge reports, with a warning at ptr, a command that is a local bridge to
// a remote server ("npx mcp-remote http://localhost:10001/sse") whose URL is not
// usable (see CheckURL and unusable: in a public document, a loopback or private
// address names the publisher's own machine): it runs no server of its own and
// reaches none the reader has, so it is no local server.
func (r *reader) unusableBridge(ptr, cmd string) bool {
	u := bridgeURL(cmd)
	if u == "" {
		return false
	}
	why := CheckURL(u)
	if why == "" {
		why = r.unusable(u)
	}
	if why == "" {
		return false
	}
	r.warn(ptr, "command "+quote(cmd)+" is a local bridge (mcp-remote) to a remote server, and its "+why+"; it runs no server of its own: no local server listed")
	return true
}

// bridgeURL returns the remote URL a local bridge command connects to ("npx -y
// mcp-remote https://x.dev/mcp"), or "".
func bridgeURL(cmd string) string {
	f := strings.Fields(cmd)
	for i, w := range f {
		if strings.HasPrefix(w, "mcp-remote") && i+1 < len(f) {
			for _, a := range f[i+1:] {
				if strings.HasPrefix(a, "https://") || strings.HasPrefix(a, "http://") {
					return a
				}
			}
		}
	}
	return ""
}
