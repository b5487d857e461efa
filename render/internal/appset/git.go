package appset

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/capreport/capreport/render/internal/pathspec"
	"sigs.k8s.io/yaml"
)

// gitGen is upstream's GitGenerator.GenerateParams, on this repository's tree instead of a clone of
// repoURL at revision. A repoURL that names another repository yields nothing, with a problem.
func (e *expander) gitGen(where string, spec map[string]any, out sink) (unknown bool, err error) {
	repoURL, err := str(spec, "repoURL", where)
	if err != nil {
		return false, err
	}
	if e.opts.IsThisRepo == nil || !e.opts.IsThisRepo(repoURL) {
		e.find(CheckOtherRepo, SeverityWarning, "%s: the git generator reads %q, which is not this repository; "+
			"it yields no Application here", where, repoURL)
		return true, nil
	}
	if rev, _ := str(spec, "revision", where); rev != "" && rev != "HEAD" {
		e.find(CheckOtherRepo, SeverityInfo, "%s: the git generator reads revision %q; capreport reads this checkout instead", where, rev)
	}
	g := gitSpec{where: where}
	if g.values, err = strMap(spec, "values", where); err != nil {
		return false, err
	}
	if g.prefix, err = str(spec, "pathParamPrefix", where); err != nil {
		return false, err
	}
	dirs, err := gitItems(spec, "directories", where)
	if err != nil {
		return false, err
	}
	files, err := gitItems(spec, "files", where)
	if err != nil {
		return false, err
	}
	switch {
	case len(dirs) != 0:
		return false, e.gitDirectories(g, dirs, out)
	case len(files) != 0:
		return false, e.gitFiles(g, files, out)
	}
	return false, invalidf("%s: ApplicationSet is empty (the git generator needs directories or files)", where)
}

type gitSpec struct {
	where  string
	values map[string]string
	prefix string // pathParamPrefix
}

type gitItem struct {
	path    string
	exclude bool
}

func gitItems(spec map[string]any, key, where string) ([]gitItem, error) {
	raw, err := list(spec, key, where)
	if err != nil {
		return nil, err
	}
	items := make([]gitItem, 0, len(raw))
	for i, x := range raw {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, invalidf("%s.%s[%d] must be an object, not %s", where, key, i, kindOf(x))
		}
		at := fmt.Sprintf("%s.%s[%d]", where, key, i)
		var it gitItem
		if it.path, err = str(m, "path", at); err != nil {
			return nil, err
		}
		if it.exclude, err = boolean(m, "exclude", at); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// gitDirectories lists the repository's directories as the repo server does (a depth-first walk in
// lexical order, hidden directories and what is below them skipped) and keeps those that match an include
// pattern and no exclude pattern, with path.Match (filterApps).
func (e *expander) gitDirectories(g gitSpec, items []gitItem, out sink) error {
	for _, dir := range walkOrder(e.repo.Dirs()) {
		if err := e.spend(1 + len(items)); err != nil {
			return err
		}
		include, exclude := false, false
		for _, it := range items {
			match, err := path.Match(it.path, dir)
			if err != nil || !match {
				continue // upstream logs a bad pattern and goes on
			}
			if it.exclude {
				exclude = true
			} else {
				include = true
			}
		}
		if !include || exclude {
			continue
		}
		params := dirParams(dir, g.prefix, e.goTemplate)
		if err := e.appendValues(g, params); err != nil {
			return err
		}
		if !out(params) {
			return nil
		}
	}
	return nil
}

// walkOrder drops hidden directories (a segment starting with ".") and sorts the rest as filepath.WalkDir
// visits them: segment by segment, so "a/b" comes before "a-c".
func walkOrder(dirs []string) []string {
	var kept []string
	for _, d := range dirs {
		if d == "" || d == "." || strings.HasPrefix(d, ".") || strings.Contains(d, "/.") {
			continue
		}
		kept = append(kept, d)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		return strings.ReplaceAll(kept[i], "/", "\x00") < strings.ReplaceAll(kept[j], "/", "\x00")
	})
	return kept
}

// dirParams is generateParamsFromApps for one directory.
func dirParams(dir, prefix string, goTemplate bool) map[string]any {
	params := map[string]any{}
	if goTemplate {
		p := map[string]any{
			"path":               dir,
			"basename":           path.Base(dir),
			"basenameNormalized": sanitizeName(path.Base(dir)),
			"segments":           strings.Split(dir, "/"),
		}
		setPathParam(params, prefix, p)
		return params
	}
	name := legacyPathName(prefix)
	params[name] = dir
	params[name+".basename"] = path.Base(dir)
	params[name+".basenameNormalized"] = sanitizeName(path.Base(dir))
	addSegments(params, name, dir)
	return params
}

func setPathParam(params map[string]any, prefix string, p map[string]any) {
	if prefix != "" {
		params[prefix] = map[string]any{"path": p}
	} else {
		params["path"] = p
	}
}

func legacyPathName(prefix string) string {
	if prefix != "" {
		return prefix + ".path"
	}
	return "path"
}

func addSegments(params map[string]any, name, dir string) {
	for i, seg := range strings.Split(dir, "/") {
		if seg != "" {
			params[name+"["+strconv.Itoa(i)+"]"] = seg
		}
	}
}

// gitFiles is generateParamsForGitFiles: the files matching an include pattern and no exclude pattern
// (whatever their order in the list), sorted, each a JSON or YAML object (one parameter set) or a list of objects (one each).
func (e *expander) gitFiles(g gitSpec, items []gitItem, out sink) error {
	files := e.repo.Files()
	if err := e.spend(len(files) * len(items) / 8); err != nil {
		return err
	}
	var selected []string
	for _, f := range files {
		include, exclude := false, false
		for _, it := range items {
			if e.fileMatch(it.path, f) {
				include = include || !it.exclude
				exclude = exclude || it.exclude
			}
		}
		if include && !exclude {
			selected = append(selected, f)
		}
	}
	sort.Strings(selected)
	for _, f := range selected {
		objects, err := e.readGitFile(g, f)
		if err != nil {
			return err
		}
		for _, o := range objects {
			params := fileParams(o, f, g.prefix, e.goTemplate)
			if err := e.appendValues(g, params); err != nil {
				return err
			}
			if !out(params) {
				return nil
			}
		}
	}
	return nil
}

func (e *expander) fileMatch(pattern, file string) bool {
	if e.opts.NewGitFileGlobbing {
		ok, err := doublestar.Match(path.Clean(pattern), file)
		return err == nil && ok
	}
	return pathspec.LsFiles(pattern, file)
}

// readGitFile parses one file as upstream's generateParamsFromGitFile does with sigs.k8s.io/yaml: first
// as one object (an empty file is an empty object), else as a list of objects.
func (e *expander) readGitFile(g gitSpec, file string) ([]map[string]any, error) {
	content, err := e.repo.ReadFile(file)
	if err != nil {
		return nil, invalidf("%s: unable to read file '%s': %v", g.where, file, err)
	}
	e.readLeft -= len(content)
	if e.readLeft < 0 {
		return nil, limitf(CheckTooMany, "%s: the git files generator reads more than capreport's %d bytes", g.where, maxReadBytes)
	}
	if err := e.spend(1 + len(content)/yamlBytesPerUnit); err != nil {
		return nil, err
	}
	var objects []map[string]any
	single := map[string]any{}
	if err := yaml.Unmarshal(content, &single); err == nil {
		objects = append(objects, single)
	} else if err := yaml.Unmarshal(content, &objects); err != nil {
		return nil, invalidf("%s: unable to process file '%s': unable to parse file: %v", g.where, file, err)
	}
	for _, o := range objects {
		if _, _, ok := measure(o, maxParamSize); !ok {
			return nil, limitf(CheckTooMany, "%s: file '%s' holds a parameter set larger than capreport's bound (%d units)", g.where, file, maxParamSize)
		}
	}
	return objects, nil
}

// fileParams adds the path parameters of a git file to the parameters it holds (flattened in the legacy
// syntax).
func fileParams(o map[string]any, file, prefix string, goTemplate bool) map[string]any {
	dir := path.Dir(file)
	params := map[string]any{}
	if goTemplate {
		for k, v := range o {
			params[k] = v
		}
		p := map[string]any{
			"path":               dir,
			"basename":           path.Base(dir),
			"filename":           path.Base(file),
			"basenameNormalized": sanitizeName(path.Base(dir)),
			"filenameNormalized": sanitizeName(path.Base(file)),
			"segments":           strings.Split(dir, "/"),
		}
		setPathParam(params, prefix, p)
		return params
	}
	for k, v := range flatten(o) {
		params[k] = v
	}
	name := legacyPathName(prefix)
	params[name] = dir
	params[name+".basename"] = path.Base(dir)
	params[name+".filename"] = path.Base(file)
	params[name+".basenameNormalized"] = sanitizeName(path.Base(dir))
	params[name+".filenameNormalized"] = sanitizeName(path.Base(file))
	addSegments(params, name, dir)
	return params
}

// appendValues is upstream's appendTemplatedValues: each value rendered with the parameters built so
// far, then added as values.<key> (legacy) or under .values (goTemplate).
func (e *expander) appendValues(g gitSpec, params map[string]any) error {
	if len(g.values) == 0 {
		return nil
	}
	e.outLeft = maxAppBytes
	rendered := make(map[string]any, len(g.values))
	for _, k := range sortedKeys(g.values) {
		v, err := e.replace(g.values[k], params, e.options)
		if err != nil {
			return wrapTemplate(err, "%s: failed to append templated values: failed to replace templated string", g.where)
		}
		rendered[k] = v
	}
	if e.goTemplate {
		params["values"] = rendered
		return nil
	}
	for k, v := range rendered {
		params["values."+k] = v
	}
	return nil
}
