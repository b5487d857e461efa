package helm

import (
	"path"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/repofs"
)

// A Tree maps template keys ("name/charts/sub/templates/x.yaml") back to
// files on disk.
type Tree struct {
	dir  string           // chart directory (or .tgz archive)
	subs map[string]*Tree // by chart name and by dependency alias
}

// Dirs maps the chart at dir and its vendored subcharts. Chart.yaml
// files are read through the repository, like every other read: one that
// is too large or a symlink out of the root is not read, so its aliases,
// or the subchart, are left out.
func Dirs(r *repofs.Repo, dir string) *Tree {
	t := &Tree{dir: dir, subs: map[string]*Tree{}}
	aliases := map[string][]string{} // chart name -> aliases
	if md, ok := Metadata(r, dir); ok {
		for _, d := range md.Dependencies {
			if d != nil && d.Alias != "" {
				aliases[d.Name] = append(aliases[d.Name], d.Alias)
			}
		}
	}
	ents, err := r.ReadDir(filepath.Join(dir, "charts"))
	if err != nil {
		return t
	}
	for _, e := range ents {
		p := filepath.Join(dir, "charts", e.Name())
		var sub *Tree
		var name string
		if strings.HasSuffix(e.Name(), ".tgz") {
			sub = &Tree{dir: p, subs: map[string]*Tree{}}
			name = strings.TrimSuffix(e.Name(), ".tgz")
			if i := strings.LastIndex(name, "-"); i > 0 {
				name = name[:i]
			}
		} else {
			md, ok := Metadata(r, p)
			if !ok {
				continue
			}
			name = md.Name
			sub = Dirs(r, p)
		}
		t.subs[name] = sub
		t.subs[e.Name()] = sub
		for _, a := range aliases[name] {
			t.subs[a] = sub
		}
	}
	return t
}

// Metadata reads and decodes dir/Chart.yaml; ok is false when it
// cannot be read from the repository or does not decode.
func Metadata(r *repofs.Repo, dir string) (*chart.Metadata, bool) {
	data, err := r.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, false
	}
	var md chart.Metadata
	if sigsyaml.Unmarshal(data, &md) != nil {
		return nil, false
	}
	return &md, true
}

// TemplateFile turns a rendered template key into a root-relative path.
func (t *Tree) TemplateFile(r *repofs.Repo, key string) string {
	parts := strings.Split(key, "/")
	cur := t
	i := 1
	for i+1 < len(parts) && parts[i] == "charts" {
		sub, ok := cur.subs[parts[i+1]]
		if !ok {
			break
		}
		cur = sub
		i += 2
	}
	rest := strings.Join(parts[i:], "/")
	if strings.HasSuffix(cur.dir, ".tgz") {
		return r.Rel(cur.dir) + "/" + rest
	}
	return path.Join(r.Rel(cur.dir), rest)
}
