//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
)

// Hostile input for the commands that read and write .capreport.yaml
// (issue 31, round three): in the Action they run on a pull request's
// checkout, where every file, link and pipe is the author's.

// boundedRun is how long a capreport process of these tests may take: a
// command that blocks on a FIFO fails its test instead of hanging the suite.
const boundedRun = 30 * time.Second

// configSecret is what a file outside the repository holds; no run may
// print it.
const configSecret = "s3cr3t-capreport-31"

type bounded struct {
	code        int
	out, errOut string
	rss         int64 // peak resident bytes of the process (wait4)
}

// runBounded runs capreport (this binary, see runAsCapreport) in dir,
// with stdin, and fails the test when it has not ended within boundedRun.
func runBounded(t *testing.T, dir, stdin string, args ...string) bounded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), boundedRun)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsCapreport+"=1")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 2 * time.Second
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("capreport %q did not end within %s (blocked on a file?); stderr:\n%s", args, boundedRun, errOut.String())
	}
	r := bounded{out: out.String(), errOut: errOut.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = int64(ru.Maxrss) << 10 // KiB on Linux
	}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("capreport %q: %v", args, err)
	}
	return r
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// configCase is one hostile .capreport.yaml (or --config) and what a run
// over it must do.
type configCase struct {
	name string
	// setup makes the hostile file in repo (the scanned repository) or
	// outside (a directory beside it, the rest of the runner) and returns
	// the arguments and the working directory ("" for repo).
	setup func(t *testing.T, repo, outside string) (args []string, dir string)
	stdin string
	code  int
	// stderr must all appear in the error output.
	stderr []string
	// untouched are files under outside that must hold what they held
	// ("" for a file that must not exist).
	untouched map[string]string
	// ownFile: the file is the user's own (--config outside the
	// repository), so its path and values may be quoted.
	ownFile bool
}

func (c configCase) run(t *testing.T) {
	repo, outside := t.TempDir(), t.TempDir()
	testutil.WriteTree(t, repo, map[string]string{"app.yaml": rootTestHPA})
	testutil.WriteTree(t, outside, map[string]string{
		"secret.yaml": "failOn: \"" + configSecret + "\"\n",
		"victim.yaml": "# " + configSecret + "\n",
		"own.yaml":    "failOn: sometimes\n",
	})
	args, dir := c.setup(t, repo, outside)
	if dir == "" {
		dir = repo
	}
	r := runBounded(t, dir, c.stdin, args...)
	if r.code != c.code {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, c.code, r.errOut)
	}
	for _, s := range c.stderr {
		if !strings.Contains(r.errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.errOut)
		}
	}
	all := r.out + r.errOut
	if strings.Contains(all, configSecret) {
		t.Errorf("the output quotes a file outside the repository:\n%s", all)
	}
	if !c.ownFile && strings.Contains(all, outside) {
		t.Errorf("the output names a path outside the repository:\n%s", all)
	}
	for name, want := range c.untouched {
		got, err := os.ReadFile(filepath.Join(outside, name))
		if want == "" && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written outside the repository: %q", name, got)
		} else if want != "" && string(got) != want {
			t.Errorf("%s outside the repository was overwritten:\n%s", name, got)
		}
	}
}

// list runs `capreport list repo --root repo`, with more arguments.
func listArgs(repo string, more ...string) []string {
	return append([]string{"list", repo, "--root", repo}, more...)
}

// TestHostileConfigRead: the repository's configuration file is read only
// when it is a regular file inside the repository; anything else is
// refused, naming the path and what it is, never what it points at or
// holds. A --config outside the repository is the user's own: a symlink
// there is followed, a FIFO or device is still refused.
func TestHostileConfigRead(t *testing.T) {
	cases := []configCase{
		{name: "config-symlink-to-a-runner-file", code: cmdutil.ExitError, stderr: []string{".capreport.yaml", "is a symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(repo, config.FileName))
				return listArgs(repo), ""
			}},
		{name: "yml-symlink-scanned", code: cmdutil.ExitError, stderr: []string{".capreport.yml", "is a symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(repo, ".capreport.yml"))
				return []string{repo, "--root", repo, "--format", "json"}, ""
			}},
		{name: "relative-symlink-in-path", code: cmdutil.ExitError, stderr: []string{"is a symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.WriteTree(t, repo, map[string]string{"sub/app.yaml": rootTestHPA})
				rel, _ := filepath.Rel(filepath.Join(repo, "sub"), filepath.Join(outside, "secret.yaml"))
				testutil.Symlink(t, rel, filepath.Join(repo, "sub", config.FileName))
				return listArgs(filepath.Join(repo, "sub"), "--root", repo), ""
			}},
		{name: "config-flag-symlink-inside", code: cmdutil.ExitError, stderr: []string{"cfg.yaml", "is a symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(repo, "cfg.yaml"))
				return listArgs(repo, "--config", "cfg.yaml"), ""
			}},
		{name: "config-flag-through-symlinked-dir", code: cmdutil.ExitError, stderr: []string{"conf", "symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, outside, filepath.Join(repo, "conf"))
				return listArgs(repo, "--config", filepath.Join(repo, "conf", "secret.yaml")), ""
			}},
		{name: "config-fifo", code: cmdutil.ExitError, stderr: []string{".capreport.yaml", "is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				mkfifo(t, filepath.Join(repo, config.FileName))
				return listArgs(repo), ""
			}},
		{name: "config-directory", code: cmdutil.ExitError, stderr: []string{".capreport.yaml", "is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.WriteTree(t, repo, map[string]string{".capreport.yaml/x": "failOn: never\n"})
				return listArgs(repo), ""
			}},
		{name: "config-symlink-to-dev-zero", code: cmdutil.ExitError, stderr: []string{"is a symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, "/dev/zero", filepath.Join(repo, config.FileName))
				return listArgs(repo), ""
			}},
		{name: "config-too-large", code: cmdutil.ExitError, stderr: []string{".capreport.yaml", "larger than"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.WriteTree(t, repo, map[string]string{config.FileName: "#" + strings.Repeat("x", config.MaxFileBytes) + "\n"})
				return listArgs(repo), ""
			}},
		{name: "stdin-with-symlinked-config", code: cmdutil.ExitError, stdin: rootTestHPA, stderr: []string{"is a symlink"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(repo, config.FileName))
				return []string{"list", "-"}, repo
			}},
		// The user's own file, named on the command line outside the
		// repository: read (its error quotes its value), through a link too.
		{name: "config-flag-outside", code: cmdutil.ExitError, ownFile: true, stderr: []string{`"sometimes" is not one of`},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				return listArgs(repo, "--config", filepath.Join(outside, "own.yaml")), ""
			}},
		{name: "config-flag-outside-symlink", code: cmdutil.ExitError, ownFile: true, stderr: []string{`"sometimes" is not one of`},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "own.yaml"), filepath.Join(outside, "link.yaml"))
				return listArgs(repo, "--config", filepath.Join(outside, "link.yaml")), ""
			}},
		{name: "config-flag-outside-fifo", code: cmdutil.ExitError, ownFile: true, stderr: []string{"is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				mkfifo(t, filepath.Join(outside, "pipe.yaml"))
				return listArgs(repo, "--config", filepath.Join(outside, "pipe.yaml")), ""
			}},
		{name: "config-flag-dev-zero", code: cmdutil.ExitError, ownFile: true, stderr: []string{"is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				return listArgs(repo, "--config", "/dev/zero"), ""
			}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestHostileConfigWrite: init and calibrate never write through a
// .capreport.yaml that is a symlink (dangling or not), and never block on
// one that is a FIFO.
func TestHostileConfigWrite(t *testing.T) {
	prom := emptyPrometheus(t)
	cases := []configCase{
		{name: "init-through-dangling-symlink", code: cmdutil.ExitError, stderr: []string{"is a symlink"}, untouched: map[string]string{"new.yaml": ""},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "new.yaml"), filepath.Join(repo, config.FileName))
				return []string{"init", repo, "--root", repo}, ""
			}},
		{name: "init-force-over-symlink", code: cmdutil.ExitError, stderr: []string{"is a symlink"}, untouched: map[string]string{"victim.yaml": "# " + configSecret + "\n"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "victim.yaml"), filepath.Join(repo, config.FileName))
				return []string{"init", repo, "--root", repo, "--force"}, ""
			}},
		{name: "init-force-over-fifo", code: cmdutil.ExitError, stderr: []string{"is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				mkfifo(t, filepath.Join(repo, config.FileName))
				return []string{"init", repo, "--root", repo, "--force"}, ""
			}},
		{name: "init-stdout-with-fifo", code: cmdutil.ExitError, stderr: []string{"is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				mkfifo(t, filepath.Join(repo, config.FileName))
				return []string{"init", repo, "--root", repo, "--stdout"}, ""
			}},
		{name: "calibrate-fifo", code: cmdutil.ExitError, stderr: []string{"is not a regular file"},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				mkfifo(t, filepath.Join(repo, config.FileName))
				return []string{"calibrate", repo, "--root", repo, "--prometheus", prom}, ""
			}},
		{name: "calibrate-dangling-symlink", code: cmdutil.ExitError, stderr: []string{"is a symlink"}, untouched: map[string]string{"new.yaml": ""},
			setup: func(t *testing.T, repo, outside string) ([]string, string) {
				testutil.Symlink(t, filepath.Join(outside, "new.yaml"), filepath.Join(repo, config.FileName))
				return []string{"calibrate", repo, "--root", repo, "--prometheus", prom}, ""
			}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// emptyPrometheus answers every query with no series: calibrate measures
// nothing, and goes on to read and maybe write its file.
func emptyPrometheus(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := "vector"
		if strings.HasSuffix(r.URL.Path, "query_range") {
			kind = "matrix"
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"` + kind + `","result":[]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRepositoryConfigCannotFetch: a repository's fetch: true does not
// turn on downloads for someone running plain capreport on its checkout
// (a pull request could add it); a warning says it is ignored and how to
// fetch. Only --fetch does, and --fetch=false stays off.
func TestRepositoryConfigCannotFetch(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	chart := map[string]string{
		"chart/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: common\n    version: 1.0.0\n    repository: " + srv.URL + "/charts\n",
		"chart/templates/hpa.yaml": rootTestHPA,
	}
	const warning = "fetch: true is ignored"
	for _, c := range []struct {
		name   string
		config string // the repository's .capreport.yaml
		own    string // a --config outside the repository
		args   []string
		fetch  bool
		warn   bool
	}{
		{name: "repository-fetch-true", config: "fetch: true\n", warn: true},
		{name: "repository-fetch-yes", config: "fetch: yes\n", warn: true},
		{name: "own-config-fetch-true", own: "fetch: true\n", warn: true},
		{name: "repository-fetch-true-flag-off", config: "fetch: true\n", args: []string{"--fetch=false"}},
		{name: "flag-on", args: []string{"--fetch"}, fetch: true},
		{name: "repository-fetch-false", config: "fetch: false\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			testutil.WriteTree(t, repo, chart)
			args := append([]string{"list", repo, "--root", repo, "--cache-dir", t.TempDir()}, c.args...)
			if c.config != "" {
				testutil.WriteTree(t, repo, map[string]string{config.FileName: c.config})
			}
			if c.own != "" {
				own := filepath.Join(t.TempDir(), "own.yaml")
				testutil.WriteTree(t, filepath.Dir(own), map[string]string{"own.yaml": c.own})
				args = append(args, "--config", own)
			}
			before := requests.Load()
			var out, errOut bytes.Buffer
			run(args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
			if got := requests.Load() > before; got != c.fetch {
				t.Errorf("fetched: %v, want %v; stderr:\n%s", got, c.fetch, errOut.String())
			}
			if got := strings.Contains(errOut.String(), warning); got != c.warn {
				t.Errorf("warning %q: %v, want %v; stderr:\n%s", warning, got, c.warn, errOut.String())
			}
			if c.warn && !strings.Contains(errOut.String(), "--fetch") {
				t.Errorf("the warning does not say how to fetch:\n%s", errOut.String())
			}
		})
	}
}

// yamlEscaped is s as a YAML double-quoted scalar with every rune outside
// printable ASCII escaped, so that any text survives a manifest.
func yamlEscaped(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString("\\" + string(r))
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "\\U%08x", r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hpaManifest is an autoscaler of that name and namespace.
func hpaManifest(namespace, name string) string {
	q := yamlEscaped
	return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: " + q(name) + ", namespace: " + q(namespace) + "}\n" +
		"spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: " + q(name) + "}\n  minReplicas: 1\n  maxReplicas: 4\n" +
		"  metrics:\n    - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}\n"
}

// initEntries runs init --stdout on repo and parses what it printed.
func initEntries(t *testing.T, repo string) (*config.Config, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run([]string{"init", repo, "--root", repo, "--stdout"}, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}); code != cmdutil.ExitOK {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	cfg, err := config.Parse(config.FileName, out.Bytes())
	if err != nil {
		t.Fatalf("init wrote a file that does not load: %v\n%s", err, out.String())
	}
	return cfg, out.String()
}

// checkOnlyEntry: cfg has one workloads entry, with no assumption set,
// and no other live setting: it names exactly ns/kind/name.
func checkOnlyEntry(t *testing.T, cfg *config.Config, body, ns, name string) {
	t.Helper()
	if len(cfg.Workloads) != 1 || len(cfg.Sources) != 0 || !reflect.DeepEqual(cfg.Defaults, config.Assumptions{}) {
		t.Fatalf("want one workloads entry and nothing else, got %d entries, %d sources, defaults %+v:\n%s",
			len(cfg.Workloads), len(cfg.Sources), cfg.Defaults, body)
	}
	w := cfg.Workloads[0]
	if !reflect.DeepEqual(w.Assumptions, config.Assumptions{}) {
		t.Errorf("the entry sets assumptions: %+v\n%s", w.Assumptions, body)
	}
	if !w.Matches(ns, "HorizontalPodAutoscaler", name) {
		t.Errorf("the entry %q/%q/%q does not match %q/%q\n%s", w.Namespace, w.Kind, w.Name, ns, name, body)
	}
	for _, other := range []string{name + "x", "x" + name, "other"} {
		if w.Matches(ns, "HorizontalPodAutoscaler", other) {
			t.Errorf("the entry for %q also matches %q (a glob)\n%s", name, other, body)
		}
	}
}

// TestInitWritesNamesAsData: whatever an autoscaler's name, namespace or
// file is called, init writes it as data: the file loads, holds one entry
// naming exactly that autoscaler, and nothing the names could have made
// live (a manifest named with a newline and a workloads entry once set
// deadTime: 1s, podRate: 1000 for every workload).
func TestInitWritesNamesAsData(t *testing.T) {
	for _, s := range cmdtest.HostileNames {
		t.Run("name "+strconv.Quote(s), func(t *testing.T) {
			repo := t.TempDir()
			testutil.WriteTree(t, repo, map[string]string{"hpa.yaml": hpaManifest("shop", s)})
			cfg, body := initEntries(t, repo)
			checkOnlyEntry(t, cfg, body, "shop", s)
		})
		t.Run("namespace "+strconv.Quote(s), func(t *testing.T) {
			repo := t.TempDir()
			testutil.WriteTree(t, repo, map[string]string{"hpa.yaml": hpaManifest(s, "web")})
			cfg, body := initEntries(t, repo)
			checkOnlyEntry(t, cfg, body, s, "web")
		})
	}
	for _, s := range cmdtest.HostileNames {
		if strings.ContainsAny(s, "/\x00") {
			continue
		}
		t.Run("file "+strconv.Quote(s), func(t *testing.T) {
			repo := t.TempDir()
			testutil.WriteTree(t, repo, map[string]string{"m" + s + ".yaml": hpaManifest("shop", "web")})
			cfg, body := initEntries(t, repo)
			checkOnlyEntry(t, cfg, body, "shop", "web")
		})
	}
}

// TestInitWritesChartNamesAsData: a chart directory and a ci/ values file
// of any name become a source entry that reads back as that chart and
// file, or none (a value set name the configuration refuses).
func TestInitWritesChartNamesAsData(t *testing.T) {
	hpa := "{{- if .Values.enabled }}\n" + hpaManifest("shop", "web") + "{{- end }}\n"
	for _, s := range []string{"- item", "null", "~", "a: b", "x,y", "[", "{a,b}", "#x", "a b", "a@b", "a\nb", "a\u2028b",
		"x]}\n  - path: evil\n#", "\"dq\"", "'q'", "\ufeffbom"} {
		t.Run(strconv.Quote(s), func(t *testing.T) {
			repo := t.TempDir()
			chart := "charts/m" + s
			testutil.WriteTree(t, repo, map[string]string{
				chart + "/Chart.yaml":               "apiVersion: v2\nname: web\nversion: 1.0.0\n",
				chart + "/values.yaml":              "enabled: false\n",
				chart + "/templates/hpa.yaml":       hpa,
				chart + "/ci/" + s + "-values.yaml": "enabled: true\n",
				chart + "/ci/plain-values.yaml":     "enabled: true\n",
			})
			cfg, body := initEntries(t, repo)
			want := []config.ValueSet{{Name: "plain", Values: []string{chart + "/ci/plain-values.yaml"}}}
			if config.ValidValueSetName(s) {
				want = append([]config.ValueSet{{Name: s, Values: []string{chart + "/ci/" + s + "-values.yaml"}}}, want...)
				if s > "plain" {
					want[0], want[1] = want[1], want[0]
				}
			}
			if len(cfg.Sources) == 0 && strings.Contains(s, "\n") && !strings.Contains(body, "\nsources:") {
				t.Skip("the chart's ci value sets render nothing here: init writes no source, which is safe")
			}
			if len(cfg.Sources) != 1 || cfg.Sources[0].Path != chart || len(cfg.Workloads) != 0 {
				t.Fatalf("want one source %q and no workloads:\n%s", chart, body)
			}
			got := cfg.Sources[0].ValueSets
			for i := range got {
				got[i].Line = 0
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("value sets %+v, want %+v\n%s", got, want, body)
			}
		})
	}
}

// mergeCase is one set of hostile inputs to merge (or diff) and what the
// run must say.
type mergeCase struct {
	name string
	// setup writes the inputs in dir and returns the arguments.
	setup  func(t *testing.T, dir string) []string
	code   int
	stderr []string
}

// goodReport is a valid report of one passing workload.
func goodReport(t *testing.T) string {
	return jobReport(t, "charts", []contract.Workload{wl("shop/HorizontalPodAutoscaler/web", contract.VerdictPass)}, []contract.Source{}, []contract.Finding{})
}

// withoutKey is the report doc without one top-level key.
func withoutKey(t *testing.T, doc, key string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, key)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sparse makes a file of size bytes that holds no blocks.
func sparse(t *testing.T, p string, size int64) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestHostileMergeInputs: merge checks each input's type before opening
// it, bounds each input and their sum before reading, and holds every
// input to the report schema: a FIFO does not block, four 240 MB files are
// refused before a byte of them is read, and a report without workloads is
// refused by name. diff's saved reports are read alike (a regular file,
// within the bound), their schema version checked.
func TestHostileMergeInputs(t *testing.T) {
	write := func(t *testing.T, dir, name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []mergeCase{
		{name: "report-without-workloads", code: cmdutil.ExitError, stderr: []string{"b.json", "does not match the capreport report schema", "workloads"},
			setup: func(t *testing.T, dir string) []string {
				return []string{"merge", write(t, dir, "a.json", goodReport(t)), write(t, dir, "b.json", withoutKey(t, goodReport(t), "workloads"))}
			}},
		{name: "report-without-sources", code: cmdutil.ExitError, stderr: []string{"a.json", "does not match", "sources"},
			setup: func(t *testing.T, dir string) []string {
				return []string{"merge", write(t, dir, "a.json", withoutKey(t, goodReport(t), "sources"))}
			}},
		{name: "report-with-workloads-null", code: cmdutil.ExitError, stderr: []string{"a.json", "does not match"},
			setup: func(t *testing.T, dir string) []string {
				return []string{"merge", write(t, dir, "a.json", strings.Replace(goodReport(t), `"workloads":[`, `"workloads":null,"x":[`, 1))}
			}},
		{name: "fifo", code: cmdutil.ExitError, stderr: []string{"pipe.json", "is not a regular file"},
			setup: func(t *testing.T, dir string) []string {
				mkfifo(t, filepath.Join(dir, "pipe.json"))
				return []string{"merge", write(t, dir, "a.json", goodReport(t)), filepath.Join(dir, "pipe.json")}
			}},
		{name: "fifo-first", code: cmdutil.ExitError, stderr: []string{"pipe.json", "is not a regular file"},
			setup: func(t *testing.T, dir string) []string {
				mkfifo(t, filepath.Join(dir, "pipe.json"))
				return []string{"merge", filepath.Join(dir, "pipe.json"), write(t, dir, "a.json", goodReport(t))}
			}},
		{name: "dev-zero", code: cmdutil.ExitError, stderr: []string{"/dev/zero", "is not a regular file"},
			setup: func(t *testing.T, dir string) []string { return []string{"merge", "/dev/zero"} }},
		{name: "directory", code: cmdutil.ExitError, stderr: []string{"is not a regular file"},
			setup: func(t *testing.T, dir string) []string { return []string{"merge", dir} }},
		{name: "four-240MB-reports", code: cmdutil.ExitError, stderr: []string{"--max-report-bytes"},
			setup: func(t *testing.T, dir string) []string {
				args := []string{"merge"}
				for _, n := range []string{"a", "b", "c", "d"} {
					sparse(t, filepath.Join(dir, n+".json"), 240<<20)
					args = append(args, filepath.Join(dir, n+".json"))
				}
				return args
			}},
		{name: "one-report-over-the-bound", code: cmdutil.ExitError, stderr: []string{"a.json", "--max-report-bytes"},
			setup: func(t *testing.T, dir string) []string {
				return []string{"merge", "--max-report-bytes", "1000", write(t, dir, "a.json", goodReport(t)+strings.Repeat(" ", 1000))}
			}},
		{name: "diff-fifo", code: cmdutil.ExitError, stderr: []string{"pipe.json", "is not a regular file"},
			setup: func(t *testing.T, dir string) []string {
				mkfifo(t, filepath.Join(dir, "pipe.json"))
				return []string{"diff", "--base-json", filepath.Join(dir, "pipe.json"), "--head-json", write(t, dir, "head.json", goodReport(t))}
			}},
		// Each saved report within the bound, the two together over it: the
		// one read first (a report and 130 MiB of white space) is streamed,
		// the other refused by its size before a byte of it is read.
		{name: "diff-two-reports-over-the-bound-together", code: cmdutil.ExitError, stderr: []string{"with the other report's"},
			setup: func(t *testing.T, dir string) []string {
				padded := write(t, dir, "padded.json", goodReport(t))
				f, err := os.OpenFile(padded, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				spaces := []byte(strings.Repeat(" ", 1<<20))
				for range 130 {
					if _, err := f.Write(spaces); err != nil {
						t.Fatal(err)
					}
				}
				f.Close()
				sparse(t, filepath.Join(dir, "sparse.json"), 130<<20)
				return []string{"diff", "--base-json", padded, "--head-json", filepath.Join(dir, "sparse.json")}
			}},
		// What merge did and does: a report named through a link is read.
		{name: "symlink-to-a-report", code: cmdutil.ExitOK,
			setup: func(t *testing.T, dir string) []string {
				testutil.Symlink(t, write(t, dir, "a.json", goodReport(t)), filepath.Join(dir, "link.json"))
				return []string{"merge", filepath.Join(dir, "link.json")}
			}},
	}
	// The binary alone (its libraries' init) takes some 200 MiB resident.
	base := runBounded(t, t.TempDir(), "", "version").rss
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.setup(t, dir)
			r := runBounded(t, dir, "", args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, c.code, r.errOut)
			}
			for _, s := range c.stderr {
				if !strings.Contains(r.errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.errOut)
				}
			}
			if r.rss > base+100<<20 {
				t.Errorf("peaked at %d MiB resident, %d MiB without reading a report; refusing an input reads none of it", r.rss>>20, base>>20)
			}
		})
	}
}
