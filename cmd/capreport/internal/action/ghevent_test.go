package action

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// FuzzReadEvent: an event payload, however malformed, is read or refused
// with an error; the accessors never panic.
func FuzzReadEvent(f *testing.F) {
	for _, s := range []string{
		`{"number": 7, "pull_request": {"number": 7, "head": {"sha": "abc", "repo": {"full_name": "f/r"}}, "base": {"repo": {"full_name": "o/r"}}}}`,
		`{"workflow_run": {"id": 1, "html_url": "https://github.com/o/r/actions/runs/1", "head_sha": "x", "head_repository": null}}`,
		`{"schedule": "0 6 * * 1"}`, `[]`, `null`, `{"pull_request": 5}`, ``,
	} {
		f.Add(s)
	}
	// One file per worker, rewritten per input: a directory made and removed
	// for each input cost most of the time.
	p := filepath.Join(f.TempDir(), "event.json")
	f.Fuzz(func(t *testing.T, payload string) {
		if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		env := eventEnv(p)
		ev, err := readEvent(env)
		if err != nil {
			return
		}
		_ = ev.headSHA()
		_ = ev.fromFork()
		_ = ev.runURL(env, "https://github.com/", "o/r")
	})
}

func TestEventAccessors(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) cmdutil.LookupEnv {
		p := filepath.Join(dir, "e.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return eventEnv(p)
	}
	for _, c := range []struct {
		payload     string
		sha, runURL string
		fork        bool
	}{
		{`{"pull_request": {"number": 7, "head": {"sha": "abc", "repo": {"full_name": "f/r"}}, "base": {"repo": {"full_name": "o/r"}}}}`,
			"abc", "https://github.com/o/r/actions/runs/12", true},
		{`{"pull_request": {"number": 7, "head": {"sha": "abc", "repo": {"full_name": "O/R"}}, "base": {"repo": {"full_name": "o/r"}}}}`,
			"abc", "https://github.com/o/r/actions/runs/12", false},
		{`{"workflow_run": {"html_url": "https://github.com/o/r/actions/runs/99", "head_sha": "def", "head_repository": {"full_name": "o/r"}, "repository": {"full_name": "o/r"}}}`,
			"def", "https://github.com/o/r/actions/runs/99", false},
		{`{"workflow_run": {"html_url": "javascript:alert(1)", "head_sha": "def", "head_repository": {"full_name": "f/r"}, "repository": {"full_name": "o/r"}}}`,
			"def", "https://github.com/o/r/actions/runs/12", true},
		{`{"schedule": "x"}`, "", "https://github.com/o/r/actions/runs/12", false},
	} {
		env := write(c.payload)
		ev, err := readEvent(env)
		if err != nil {
			t.Fatal(err)
		}
		if ev.headSHA() != c.sha || ev.fromFork() != c.fork || ev.runURL(env, "https://github.com/", "o/r") != c.runURL {
			t.Errorf("%s: sha %q fork %v run %q", c.payload, ev.headSHA(), ev.fromFork(), ev.runURL(env, "https://github.com/", "o/r"))
		}
	}
	if _, err := readEvent(write("{")); err == nil {
		t.Error("a truncated payload was read")
	}
	if ev, err := readEvent(func(string) (string, bool) { return "", false }); ev != nil || err != nil {
		t.Errorf("no GITHUB_EVENT_PATH: %v, %v", ev, err)
	}
}

// eventEnv is an Actions environment with the event payload at p and run 12.
func eventEnv(p string) cmdutil.LookupEnv {
	return func(k string) (string, bool) {
		switch k {
		case "GITHUB_EVENT_PATH":
			return p, true
		case "GITHUB_RUN_ID":
			return "12", true
		}
		return "", false
	}
}
