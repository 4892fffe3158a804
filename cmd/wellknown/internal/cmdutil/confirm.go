package cmdutil

import (
	"context"
	"fmt"
	"strings"
)

// Confirm asks the person question on the terminal, "[y/N]", and reports whether they
// answered yes. Without a terminal on stdin and stderr it asks nothing and returns
// false: the caller decides what a flag such as --yes grants instead.
func (a *App) Confirm(ctx context.Context, question string) (bool, error) {
	if !a.IsTerminal(a.In) || !a.IsTerminal(a.ErrOut) {
		return false, nil
	}
	a.askMu.Lock() // one question at a time
	defer a.askMu.Unlock()
	a.ttyMu.Lock()
	a.prompting = true
	if a.CanRewrite() {
		fmt.Fprint(a.ErrOut, "\r\033[K")
	}
	fmt.Fprintf(a.ErrOut, "%s [y/N] ", question)
	a.ttyMu.Unlock()
	defer func() {
		a.ttyMu.Lock()
		a.prompting = false
		a.ttyMu.Unlock()
	}()
	line, err := a.readLine(ctx)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
