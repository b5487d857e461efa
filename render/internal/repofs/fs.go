package repofs

// FS is what a Repo reads through: the read methods of kyaml's
// filesys.FileSystem, which every filesys.FileSystem has (named here so
// that this package links no kustomize code). Paths are absolute.
type FS interface {
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]string, error) // the names in a directory
	IsDir(path string) bool
	Exists(path string) bool
}
