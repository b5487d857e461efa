package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/capreport/capreport/contract"
)

// run measures both sides on path: a warm-up round, then s.count rounds
// each running capreport and then the CLIs.
func run(s settings, path string, capArgs []string) error {
	flags, err := parseCapFlags(capArgs)
	if err != nil {
		return fmt.Errorf("capreport flags: %w", err)
	}
	dir, err := os.MkdirTemp("", "benchrepo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	argv := append([]string{s.capreport, path, "--format", "json"}, capArgs...)
	load0 := loadAverage()
	rep, first, err := measureCapreport(argv, filepath.Join(dir, "report.json"))
	if err != nil {
		return err
	}
	pl, err := newPlanner(rep, path, flags, s)
	if err != nil {
		return err
	}
	p := pl.plan(rep.Sources)
	if len(p.jobs) == 0 {
		return fmt.Errorf("no Helm or Kustomize source in capreport's report of %s", path)
	}
	if s.keep != "" {
		if err := keep(s.keep, filepath.Join(dir, "report.json"), p.jobs); err != nil {
			return err
		}
	}
	timeout := time.Duration(s.timeout) * time.Second
	var capRuns, cliRuns []usage
	var failures map[string]string
	if s.warmup {
		_, failures = runJobs(p.jobs, s.jobs, timeout) // the first capreport run was the other half
	} else {
		capRuns = append(capRuns, first)
	}
	for i := range s.count {
		if len(capRuns) <= i {
			c, stderr := runCapreport(argv, nil)
			if c.failed > 0 {
				return fmt.Errorf("round %d: %s failed: %s", i+1, strings.Join(argv, " "), stderr)
			}
			capRuns = append(capRuns, c)
		}
		var u usage
		u, failures = runJobs(p.jobs, s.jobs, timeout)
		cliRuns = append(cliRuns, u)
	}
	printReport(os.Stdout, report{path: path, rep: rep, plan: p, s: s, capreport: capRuns, clis: cliRuns,
		failures: failures, load: [2]string{load0, loadAverage()}, commit: commitOf(pl.root)})
	return nil
}

// measureCapreport runs capreport once, writing its report to file, and
// reads the report back.
func measureCapreport(argv []string, file string) (*contract.Report, usage, error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, usage{}, err
	}
	u, stderr := runCapreport(argv, f)
	if err := f.Close(); err != nil {
		return nil, u, err
	}
	if u.failed > 0 {
		return nil, u, fmt.Errorf("%s failed: %s", strings.Join(argv, " "), stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, u, err
	}
	var rep contract.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, u, fmt.Errorf("reading capreport's report: %w", err)
	}
	return &rep, u, nil
}

// keep writes capreport's report and the CLI commands into dir.
func keep(dir, reportFile string, js []job) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(reportFile)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		return err
	}
	var b strings.Builder
	for _, j := range js {
		b.WriteString(shellQuote(j.argv) + "\n")
	}
	return os.WriteFile(filepath.Join(dir, "cli-commands.sh"), []byte(b.String()), 0o644)
}

func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"$`\\*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// commitOf is the git commit of dir's work tree, else the first line of a
// COMMIT file at its top (scripts/bitnami-vendored.sh writes one), else "".
func commitOf(dir string) string {
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	if data, err := os.ReadFile(filepath.Join(dir, "COMMIT")); err == nil {
		return strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
	}
	return ""
}
