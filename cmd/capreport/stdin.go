package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// stdinPath is the PATH argument that means standard input.
const stdinPath = "-"

// stdinName is the file standard input is rendered as; it is what findings
// and origins name.
const stdinName = "stdin"

// loadStdin renders manifests read from standard input (kubectl and
// kubeconform's "-"), as one plain file in a directory of its own: nothing
// else is read, whatever --root says. The configuration is the working
// directory's, when it has one.
func loadStdin(ctx context.Context, f *renderFlags) (*repo, error) {
	if f.stdin == nil {
		return nil, &usageError{msg: "-: standard input is not available"}
	}
	data, err := io.ReadAll(io.LimitReader(f.stdin, render.DefaultMaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if len(data) > render.DefaultMaxFileBytes {
		return nil, &usageError{msg: fmt.Sprintf("-: standard input is larger than %d MiB", render.DefaultMaxFileBytes>>20)}
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
	sub := *f
	sub.root, sub.stdin = dir, nil
	if p, ok := config.Find("."); ok && sub.configFile == "" {
		sub.configFile = p
	}
	return renderRepo(ctx, file, &sub)
}
