package cmdutil

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams carries the process's standard streams, injected so that commands
// run in tests with buffers and no terminal.
type IOStreams struct {
	In        io.Reader
	Out       io.Writer
	ErrOut    io.Writer
	StdoutTTY bool
	StderrTTY bool
	ColorEnv  ColorEnv
	// ColorMode is --color: "auto" (or empty), "always" or "never".
	ColorMode string
}

// ColorEnv is what the environment says about colour.
type ColorEnv struct {
	NoColor bool // NO_COLOR set and non-empty (no-color.org)
	Force   bool // FORCE_COLOR non-empty (force-color.org) or CLICOLOR_FORCE set and not "0"
	Dumb    bool // TERM=dumb
}

// ReadColorEnv reads what the environment says about colour.
func ReadColorEnv(getenv func(string) string) ColorEnv {
	cf := getenv("CLICOLOR_FORCE")
	return ColorEnv{
		NoColor: getenv("NO_COLOR") != "",
		Force:   getenv("FORCE_COLOR") != "" || (cf != "" && cf != "0"),
		Dumb:    getenv("TERM") == "dumb",
	}
}

// SystemStreams are the process's standard streams, with their terminals
// and the environment's colour settings detected.
func SystemStreams() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		StdoutTTY: isatty.IsTerminal(os.Stdout.Fd()),
		StderrTTY: isatty.IsTerminal(os.Stderr.Fd()),
		ColorEnv:  ReadColorEnv(os.Getenv),
	}
}

// IsStderrTTY reports whether status output goes to a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.StderrTTY }

// ColorModes are the values of --color.
var ColorModes = []string{"auto", "always", "never"}

// ColorEnabled decides colour on standard output: --color always or never
// wins; in auto, a non-empty NO_COLOR turns it off, FORCE_COLOR or
// CLICOLOR_FORCE on (even into a pipe), TERM=dumb off, else a terminal
// decides. NO_COLOR wins over FORCE_COLOR: turning colour off is the safe
// reading of a contradiction.
func (s *IOStreams) ColorEnabled() bool {
	switch {
	case s.ColorMode == "always":
		return true
	case s.ColorMode == "never", s.ColorEnv.NoColor:
		return false
	case s.ColorEnv.Force:
		return true
	case s.ColorEnv.Dumb:
		return false
	}
	return s.StdoutTTY
}
