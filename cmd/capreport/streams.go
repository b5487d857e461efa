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
	noColor   bool
}

func systemStreams() *streams {
	_, noColor := os.LookupEnv("NO_COLOR")
	return &streams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdoutTTY: isatty.IsTerminal(os.Stdout.Fd()),
		stderrTTY: isatty.IsTerminal(os.Stderr.Fd()),
		noColor:   noColor || os.Getenv("TERM") == "dumb",
	}
}

// IsStderrTTY reports whether status output goes to a terminal.
func (s *streams) IsStderrTTY() bool { return s.stderrTTY }

// ColorEnabled is true only on a terminal and when NO_COLOR is unset.
func (s *streams) ColorEnabled() bool { return s.stdoutTTY && !s.noColor }
