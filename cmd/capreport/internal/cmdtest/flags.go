// Package cmdtest holds what the tests of several commands share: the
// flag-parsing table of the GitHub CLI's tests (a runF that only captures
// the options), the render flags as they are when no flag is given, and
// the hostile names YAML writers are tested with.
package cmdtest

import (
	"bytes"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/render"
)

// FlagCase is one command line of a command's flag-parsing table: the
// options runF must receive (with what the factory injects cleared), or
// the error parsing must stop at, before runF.
type FlagCase[O any] struct {
	Name    string
	Args    []string
	Want    O
	WantErr string
}

// Flags parses each case through NewCmdX(f, runF) with a runF that only
// captures the options, the way cli/cli tests flags. injected checks that
// the factory's pieces reached the options and clears them, so that want
// holds only what the command line decides.
func Flags[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command, injected func(*testing.T, *cmdutil.Factory, *O), cases []FlagCase[O]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
			f := cmdutil.NewFactory(ios, cmdutil.StampBuildInfo(cmdutil.BuildInfo{}, debug.ReadBuildInfo))
			var got *O
			cmd := newCmd(f, func(o *O) error { got = o; return nil })
			cmd.SetArgs(append([]string{}, c.Args...)) // never nil: cobra would read os.Args
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			if c.WantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.WantErr) {
					t.Fatalf("%v: error %v, want one containing %q", c.Args, err, c.WantErr)
				}
				if got != nil {
					t.Fatalf("%v: runF ran after a parse error", c.Args)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %v", c.Args, err)
			}
			if got == nil {
				t.Fatalf("%v: runF not called", c.Args)
			}
			injected(t, f, got)
			if !reflect.DeepEqual(*got, c.Want) {
				t.Errorf("%v:\n got %+v\nwant %+v", c.Args, *got, c.Want)
			}
		})
	}
}

// DefaultRender is RenderFlags as register leaves them with no flag given.
var DefaultRender = cmdutil.RenderFlags{
	GitOps:        true,
	RenderTimeout: render.DefaultSourceTimeout,
	RenderMemory:  render.DefaultSourceMemory,
	FetchTimeout:  render.DefaultFetchRunTimeout,
}

// WithRender is DefaultRender changed by set.
func WithRender(set func(*cmdutil.RenderFlags)) cmdutil.RenderFlags {
	r := DefaultRender
	set(&r)
	return r
}

// ClearRender drops what RenderFlags hold that is not a flag's value.
func ClearRender(t *testing.T, r *cmdutil.RenderFlags) {
	t.Helper()
	if r.FetchFlags == nil {
		t.Error("renderFlags.fetchFlags not set by register")
	}
	r.FetchFlags, r.Stdin = nil, nil
}

// SameVersion checks that the options got the factory's version, which
// the reports they build name.
func SameVersion(t *testing.T, f *cmdutil.Factory, v string) {
	t.Helper()
	if v == "" || v != f.Version {
		t.Errorf("options hold version %q, the factory %q", v, f.Version)
	}
}

// SameStreams checks that the options got the factory's streams.
func SameStreams(t *testing.T, f *cmdutil.Factory, ios *cmdutil.IOStreams) {
	t.Helper()
	if ios != f.IOStreams {
		t.Error("options do not hold the factory's streams")
	}
}
