package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// StdinPath is the PATH that names standard input, as in kubectl.
const StdinPath = "-"

// stdinName is the file standard input is rendered as; it is what findings
// and origins name.
const stdinName = "stdin"

// Repo is one rendered and analyzed repository.
type Repo struct {
	Root     string
	Config   *config.Config
	Rendered *render.Result
	// Inventory is what Load extracted; nil after Render.
	Inventory *analyze.Inventory
}

// Load runs the front half of the pipeline over several PATH arguments
// (directories, files, StdinPath) as one repository: configuration,
// render, extraction. Their objects are extracted together, so an
// autoscaler in one file finds its workload in another; the first path's
// root and configuration stand for the whole. Per-source problems are
// findings in the result; an error means the run cannot start (a missing
// path, a broken config file).
func Load(ctx context.Context, paths []string, s Settings) (*Repo, error) {
	var all *Repo
	for _, p := range paths {
		rp, err := Render(ctx, p, s)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = rp
			continue
		}
		all.Rendered.Objects = append(all.Rendered.Objects, rp.Rendered.Objects...)
		all.Rendered.Sources = append(all.Rendered.Sources, rp.Rendered.Sources...)
		all.Rendered.Findings = append(all.Rendered.Findings, rp.Rendered.Findings...)
		all.Rendered.Withheld = append(all.Rendered.Withheld, rp.Rendered.Withheld...)
	}
	all.Inventory = analyze.ExtractRendered(all.Rendered, all.Config)
	all.Inventory.Skipped = append(all.Inventory.Skipped, analyze.Withheld(all.Rendered.Withheld)...)
	return all, nil
}

// Render is Load of one path without the extraction.
func Render(ctx context.Context, path string, s Settings) (*Repo, error) {
	if path == StdinPath {
		return renderStdin(ctx, s)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, &InputError{Msg: fmt.Sprintf("%s: no such file or directory", path)}
	}
	root, err := repoRoot(path, s.Root)
	if err != nil {
		return nil, err
	}
	if err := s.validate(path, root); err != nil {
		return nil, err
	}
	cfg, cfgPath, err := loadConfig(path, root, s.ConfigFile, s.foundConfig)
	if err != nil {
		return nil, err
	}
	s.applyChecks(cfg)
	s.warnIgnoredFetch(cfg)
	opts := s.renderOptions(root, cfg)
	rebaseSources(opts.Sources, cfgPath, root)
	rendered, err := render.Render(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return &Repo{Root: root, Config: cfg, Rendered: rendered}, nil
}

// warnIgnoredFetch says that a configuration's fetch: true is ignored,
// unless --fetch settled it: fetching sends requests wherever the
// repository's charts and bases point, which only the person running
// capreport may allow, and the file may be a pull request's.
func (s *Settings) warnIgnoredFetch(cfg *config.Config) {
	if s.Warnings == nil || s.Fetch != nil || !cfg.Fetch.Set || !cfg.Fetch.Value {
		return
	}
	fmt.Fprintf(s.Warnings, "capreport: warning: %s:%d: fetch: true is ignored: a configuration file cannot turn on downloads "+
		"(a pull request could add it); pass --fetch to download chart dependencies, remote charts and remote bases\n", cfg.File, cfg.Fetch.Line)
}

// renderStdin renders manifests read from standard input (kubectl and
// kubeconform's "-"), as one plain file in a directory of its own: nothing
// else is read, whatever Root says. The configuration is the working
// directory's, when it has one.
func renderStdin(ctx context.Context, s Settings) (*Repo, error) {
	if s.Stdin == nil {
		return nil, &InputError{Msg: "-: standard input is not available"}
	}
	data, err := io.ReadAll(io.LimitReader(s.Stdin, render.DefaultMaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if len(data) > render.DefaultMaxFileBytes {
		return nil, &InputError{Msg: fmt.Sprintf("-: standard input is larger than %d MiB", render.DefaultMaxFileBytes>>20)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// helm template ... | capreport -: a producer that failed wrote
		// nothing, which is not a repository without autoscalers.
		return nil, &InputError{Msg: "-: standard input is empty (did the command writing to it fail?)"}
	}
	dir, err := os.MkdirTemp("", "capreport-stdin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, stdinName)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, err
	}
	sub := s
	sub.Root, sub.Stdin = dir, nil
	if p, ok := config.Find("."); ok && sub.ConfigFile == "" {
		sub.ConfigFile, sub.foundConfig = p, true
	}
	return Render(ctx, file, sub)
}

// LoadConfig reads the file the config flag names, else PATH's
// .capreport.yaml, else the root's, else the defaults; it returns the
// file's path ("" for the defaults).
func LoadConfig(path, root, flag string) (*config.Config, string, error) {
	return loadConfig(path, root, flag, false)
}

// loadConfig is LoadConfig; found says flag is the repository's own file
// (standard input's working directory's), not one the user named. The
// repository's file, found or named inside root, is read only as a
// regular file in a directory that stays inside root (config.Load): the
// repository may be a pull request's. A file named outside root is the
// user's own, and may be a symlink (config.LoadOwn).
func loadConfig(path, root, flag string, found bool) (*config.Config, string, error) {
	cfgPath := flag
	if cfgPath == "" {
		found = true
		if p, ok := config.Find(path); ok {
			cfgPath = p
		} else if p, ok := config.Find(root); ok {
			cfgPath = p
		}
	}
	if cfgPath == "" {
		return config.Default(), "", nil
	}
	if !found && !insideRoot(cfgPath, root) {
		cfg, err := config.LoadOwn(cfgPath)
		return cfg, cfgPath, err
	}
	if err := dirInsideRoot(cfgPath, root, found); err != nil {
		return nil, cfgPath, err
	}
	cfg, err := config.Load(cfgPath)
	return cfg, cfgPath, err
}

// insideRoot reports whether p is inside root, by its path or by where
// its directory's symlinks lead.
func insideRoot(p, root string) bool {
	if within(p, root) {
		return true
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	rootReal, err2 := filepath.EvalSymlinks(root)
	return err == nil && err2 == nil && within(dir, rootReal)
}

// dirInsideRoot refuses a repository's configuration file whose directory
// a symlink takes out of root: the file would be any of the runner's.
// found (standard input's working directory) has no root to stay in.
func dirInsideRoot(p, root string, found bool) error {
	if found && !within(p, root) {
		return nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return nil // config.Load says what is missing
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil || within(dir, rootReal) {
		return nil
	}
	return &config.Error{File: p, Msg: "is in a directory a symlink takes out of the repository; capreport reads its configuration only from a regular file in the repository"}
}

// within reports whether path p is root or below it, comparing absolute
// paths.
func within(p, root string) bool {
	ap, err := filepath.Abs(p)
	ar, err2 := filepath.Abs(root)
	if err != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ar, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// rebaseSources makes the config's source paths, written relative to the
// config file's directory, relative to the repository root.
func rebaseSources(specs []render.SourceSpec, cfgPath, root string) {
	if cfgPath == "" {
		return
	}
	dir, err := filepath.Abs(filepath.Dir(cfgPath))
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	rootAbs, err2 := filepath.Abs(root)
	if err2 == nil {
		rootAbs, err2 = filepath.EvalSymlinks(rootAbs)
	}
	if err != nil || err2 != nil {
		return
	}
	base, err := filepath.Rel(rootAbs, dir)
	if err != nil || base == "." || strings.HasPrefix(base, "..") {
		return
	}
	for i := range specs {
		specs[i].Path = filepath.ToSlash(filepath.Join(base, filepath.FromSlash(specs[i].Path)))
	}
}

// repoRoot is the Root setting when given, else the top of the git work
// tree that holds path (the nearest directory with a .git), else path
// itself.
func repoRoot(path, flag string) (string, error) {
	if flag != "" {
		st, err := os.Stat(flag)
		if err != nil || !st.IsDir() {
			return "", inputErrorf("root", "%s is not a directory", flag)
		}
		return flag, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path, nil
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return path, nil
		}
	}
}
