package simulate

import (
	"bytes"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

func TestPhiFlags(t *testing.T) {
	cmdtest.Flags(t, NewCmdPhi, func(t *testing.T, f *cmdutil.Factory, o *phiOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[phiOptions]{
		{Name: "defaults", Want: phiOptions{window: "300s", format: "text"}},
		{Name: "w", Args: []string{"--w", "3.33", "-o", "json"}, Want: phiOptions{w: "3.33", window: "300s", format: "json", wSet: true}},
		{Name: "dead time", Args: []string{"--dead-time", "90s", "--window", "600s"},
			Want: phiOptions{deadTime: "90s", window: "600s", format: "text", deadTimeSet: true, windowSet: true}},
		{Name: "argument", Args: []string{"3.33"}, WantErr: `unknown command "3.33"`},
	})
}

// The flags reach the run as given: which exclusive flags were set is
// recorded before runF, so the checks above see the user's choice, not
// the defaults.
func TestPhiFlagsParse(t *testing.T) {
	var got *phiOptions
	cmd := NewCmdPhi(cmdutil.NewFactory(&cmdutil.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, cmdutil.BuildInfo{}), func(o *phiOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--dead-time", "90s"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || !got.deadTimeSet || got.wSet || got.windowSet || got.window != "300s" || got.format != "text" {
		t.Errorf("flags = %+v", got)
	}
	in, err := parsePhiFlags(got)
	if err != nil || in.deadTime != 90 || in.window != 300 || !in.byTime {
		t.Errorf("parsed = %+v, %v", in, err)
	}
}
