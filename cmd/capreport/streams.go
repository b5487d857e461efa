package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// streams carries the process's standard streams, injected so that commands
// run in tests with buffers and no terminal.
type streams struct {
	In        io.Reader
	Out       io.Writer
	ErrOut    io.Writer
	stdoutTTY bool
	stderrTTY bool
	colorEnv  colorEnv
	// colorMode is --color: "auto" (or empty), "always" or "never".
	colorMode string
}

// colorEnv is what the environment says about colour.
type colorEnv struct {
	noColor bool // NO_COLOR set and non-empty (no-color.org)
	force   bool // FORCE_COLOR non-empty (force-color.org) or CLICOLOR_FORCE set and not "0"
	dumb    bool // TERM=dumb
}

func readColorEnv(getenv func(string) string) colorEnv {
	cf := getenv("CLICOLOR_FORCE")
	return colorEnv{
		noColor: getenv("NO_COLOR") != "",
		force:   getenv("FORCE_COLOR") != "" || (cf != "" && cf != "0"),
		dumb:    getenv("TERM") == "dumb",
	}
}

func systemStreams() *streams {
	return &streams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdoutTTY: isatty.IsTerminal(os.Stdout.Fd()),
		stderrTTY: isatty.IsTerminal(os.Stderr.Fd()),
		colorEnv:  readColorEnv(os.Getenv),
	}
}

// IsStderrTTY reports whether status output goes to a terminal.
func (s *streams) IsStderrTTY() bool { return s.stderrTTY }

// colorModes are the values of --color.
var colorModes = []string{"auto", "always", "never"}

// ColorEnabled decides colour on standard output: --color always or never
// wins; in auto, a non-empty NO_COLOR turns it off, FORCE_COLOR or
// CLICOLOR_FORCE on (even into a pipe), TERM=dumb off, else a terminal
// decides. NO_COLOR wins over FORCE_COLOR: turning colour off is the safe
// reading of a contradiction.
func (s *streams) ColorEnabled() bool {
	switch {
	case s.colorMode == "always":
		return true
	case s.colorMode == "never", s.colorEnv.noColor:
		return false
	case s.colorEnv.force:
		return true
	case s.colorEnv.dumb:
		return false
	}
	return s.stdoutTTY
}
