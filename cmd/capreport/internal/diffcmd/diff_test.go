package diffcmd

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// The base's bad ref cancels the head's build: the report names the bad
// ref, not the head's "context canceled"; a Ctrl-C is reported as such.
func TestFirstCause(t *testing.T) {
	bad := errors.New(`--base-ref: "no-such-branch" is not a commit`)
	head := errors.New("head: render failed")
	canceled := fmt.Errorf("render: %w", context.Canceled)
	live := context.Background()
	stopped, stop := context.WithCancel(context.Background())
	stop()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		errs []error
		want error
	}{
		{"none", live, []error{nil, nil}, nil},
		{"the head's own", live, []error{bad, canceled}, bad},
		{"the base's, under the head's cancellation", live, []error{canceled, bad}, bad},
		{"both real: the head's", live, []error{head, bad}, head},
		{"only cancelled", live, []error{canceled, nil}, canceled},
		{"interrupted: the head's", stopped, []error{canceled, bad}, canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstCause(tc.ctx, tc.errs...); got != tc.want {
				t.Errorf("firstCause = %v, want %v", got, tc.want)
			}
		})
	}
}
