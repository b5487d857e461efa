package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// LoadChart unpacks a chart archive in memory and loads it with the Helm
// SDK. Every entry is checked before Helm sees it: a regular file or a
// directory only (no symlink, hard link or device), a relative path with
// no "..", at most lim.MaxFiles files and lim.MaxUnpackedBytes in all.
// Helm's own LoadArchive reads without a size bound, so it is not used.
func LoadChart(ref string, data []byte, lim Limits) (*chart.Chart, error) {
	files, err := unpack(data, lim)
	if err != nil {
		return nil, wrap(ref, err)
	}
	c, err := loader.LoadFiles(files)
	if err != nil {
		return nil, &Error{Kind: Failed, Ref: ref, Err: fmt.Errorf("not a chart: %w", err)}
	}
	return c, nil
}

func unpack(data []byte, lim Limits) ([]*loader.BufferedFile, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a gzip archive: %w", err)
	}
	defer gz.Close()
	left := lim.MaxUnpackedBytes
	tr := tar.NewReader(&boundedReader{r: gz, left: &left})
	var files []*loader.BufferedFile
	for {
		hd, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, unpackErr(err)
		}
		name, skip, err := entryName(hd)
		if err != nil {
			return nil, err
		}
		if skip {
			continue
		}
		if len(files) >= lim.MaxFiles {
			return nil, &limitError{fmt.Sprintf("the archive holds more than %d files", lim.MaxFiles)}
		}
		if hd.Size > left {
			return nil, &limitError{fmt.Sprintf("entry %q is %d bytes; the archive unpacks to more than %d bytes", hd.Name, hd.Size, lim.MaxUnpackedBytes)}
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, unpackErr(err)
		}
		files = append(files, &loader.BufferedFile{Name: name, Data: b})
	}
	if len(files) == 0 {
		return nil, errors.New("the archive holds no files")
	}
	return files, nil
}

// entryName checks one tar entry and returns its path below the chart's
// top directory (Helm's layout: <chart>/Chart.yaml); skip is true for
// directories and PAX/GNU metadata entries.
func entryName(hd *tar.Header) (string, bool, error) {
	switch hd.Typeflag {
	case tar.TypeReg, '\x00': // '\x00' is the pre-POSIX regular file (tar.TypeRegA)
	case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
		return "", true, nil
	case tar.TypeSymlink, tar.TypeLink:
		return "", false, &unsafeError{fmt.Sprintf("entry %q is a link (to %q); archives may hold regular files only", hd.Name, hd.Linkname)}
	default:
		return "", false, &unsafeError{fmt.Sprintf("entry %q is of type %q; archives may hold regular files only", hd.Name, hd.Typeflag)}
	}
	n := strings.ReplaceAll(hd.Name, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return "", false, &unsafeError{fmt.Sprintf("entry %q is an absolute path", hd.Name)}
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", false, &unsafeError{fmt.Sprintf("entry %q leaves the archive (..)", hd.Name)}
		}
	}
	parts := strings.SplitN(path.Clean(n), "/", 2)
	if len(parts) < 2 || parts[1] == "" {
		return "", true, nil // a file beside the chart directory: Helm ignores it too
	}
	return parts[1], false, nil
}

func unpackErr(err error) error {
	var le *limitError
	if errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("corrupt archive: %w", err)
}

// boundedReader fails once more than *left bytes were read through it, so
// a gzip bomb stops at the bound instead of filling memory.
type boundedReader struct {
	r    io.Reader
	left *int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if *b.left <= 0 {
		return 0, &limitError{"the archive unpacks to more than the unpacked-size limit"}
	}
	if int64(len(p)) > *b.left {
		p = p[:*b.left]
	}
	n, err := b.r.Read(p)
	*b.left -= int64(n)
	return n, err
}
