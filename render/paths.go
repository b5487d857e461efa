package render

import (
	"reflect"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/repofs"
)

// repo is the scanned root (see repofs).
type repo = repofs.Repo

// diskType is the type of kyaml's on-disk file system.
var diskType = reflect.TypeOf(filesys.MakeFsOnDisk())

// isDisk reports whether fsys is the disk itself, which a worker process
// can open again from a path.
func isDisk(fsys filesys.FileSystem) bool { return reflect.TypeOf(fsys) == diskType }

// onDisk reports whether fsys reads this machine's disk, so that its
// symlinks must be evaluated: the disk itself, or a file system that says
// so (a wrapper of the disk).
func onDisk(fsys filesys.FileSystem) bool {
	if isDisk(fsys) {
		return true
	}
	d, ok := fsys.(interface{ OnDisk() bool })
	return ok && d.OnDisk()
}

// newRepo is the repository of opts, without a root yet.
//
// Everything a source's render looks at goes through its renderer's Repo
// (rd.repo): file contents and directory listings through the Repo's FS,
// and sizes, types and symlinks through its Stat, Lstat and EvalSymlinks
// (on disk, from the disk itself). So a render cache keyed on what a
// source's render read records it by wrapping that FS for the source:
// rd.repo.WithFS(recorder) keeps the root and every check, and the source
// renders with that Repo (in its worker, when it has one, which sends the
// record back with its response as it sends Covered). What runs outside a
// source's render (discovery, the GitOps expansions and Flux's generator)
// hands its result to the source in its SourceSpec, which such a key holds.
func newRepo(opts Options) *repo {
	return repofs.New(opts.FS, onDisk(opts.FS), opts.MaxFileBytes)
}
