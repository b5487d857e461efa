package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// renderFlags are helm template's flags for the charts capreport discovers,
// plus the configuration file; every command that renders takes them.
type renderFlags struct {
	values      []string
	set         []string
	releaseName string
	namespace   string
	kubeVersion string
	configFile  string
}

func (f *renderFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.values, "values", "f", nil, "values file for discovered charts (repeatable, merged in order)")
	fl.StringArrayVar(&f.set, "set", nil, "k=v value for discovered charts (repeatable, like helm --set)")
	fl.StringVar(&f.releaseName, "release-name", "", "release name for discovered charts (default \"capreport\")")
	fl.StringVar(&f.namespace, "namespace", "", "namespace for discovered charts (default \"default\")")
	fl.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version charts render for (default 1.34.0, or the config's cluster.kubeVersion)")
	fl.StringVar(&f.configFile, "config", "", "configuration file (default: PATH/.capreport.yaml when present)")
}

// repo is one rendered and analyzed repository.
type repo struct {
	root     string
	cfg      *config.Config
	rendered *render.Result
	inv      *analyze.Inventory
}

// loadRepo runs the front half of the pipeline: configuration, render,
// extraction. Per-source problems are findings in the result; an error means
// the run cannot start (a missing path, a broken config file).
func loadRepo(ctx context.Context, path string, f *renderFlags) (*repo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: no such file or directory", path)}
	}
	if !st.IsDir() {
		return nil, &usageError{msg: fmt.Sprintf("%s is not a directory", path)}
	}
	cfg := config.Default()
	cfgPath := f.configFile
	if cfgPath == "" {
		if p, ok := config.Find(path); ok {
			cfgPath = p
		}
	}
	if cfgPath != "" {
		if cfg, err = config.Load(cfgPath); err != nil {
			return nil, err
		}
	}
	opts := render.DefaultOptions()
	opts.Helm = render.HelmValues{ValuesFiles: f.values, Set: f.set, ReleaseName: f.releaseName, Namespace: f.namespace}
	opts = cfg.RenderOptions(opts)
	if f.kubeVersion != "" {
		opts.KubeVersion = f.kubeVersion
	}
	rendered, err := render.Render(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return &repo{root: path, cfg: cfg, rendered: rendered, inv: analyze.Extract(rendered.Objects, cfg)}, nil
}

// argPath is the PATH argument, "." when absent.
func argPath(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return filepath.Clean(args[0])
}

var errNoWorkload = errors.New("no such workload")
