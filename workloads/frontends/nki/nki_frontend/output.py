"""The front end's one writer of files, with the C++ side's rules
(support/output_transaction.h, docs/errors.md "Writing files"):

- the destination is a regular file or a new name in an existing folder;
  a folder, a device, a FIFO or a socket is refused before anything runs,
  so `--output /dev/null` leaves the device a device;
- the text is staged in a private temporary beside the destination
  (`mkstemp`: O_CREAT | O_EXCL | O_NOFOLLOW, so that no planted file or
  symlink is followed or reused), flushed, and renamed over the
  destination once: a reader sees the old file or the new one, never a
  part, and a failed run leaves no temporary behind."""

from __future__ import annotations

import os
import stat
import tempfile

from .errors import TraceError

# Hidden and matched by .gitignore's ".*.tmp.*", as the C++ side's
# temporaries (support/output_transaction.h, kTemporaryGlob).
_TEMP_SUFFIX = ".tmp."


def check_destination(path: str, flag: str = "--output") -> None:
    """Refuses a destination that is not a regular file or a new name in
    an existing, writable folder: one line naming the flag and the path."""
    if not path:
        raise TraceError(f"{flag}=: expected a file name, not an empty value")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise TraceError(f"{flag} {path}: cannot be checked: "
                         f"{e.strerror}; expected a file name")
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise TraceError(f"{flag} {path}: is a folder; expected a file "
                             "name")
        if not stat.S_ISREG(st.st_mode):
            raise TraceError(f"{flag} {path}: is not a regular file (a "
                             "device, pipe or socket); expected a file name")
    folder = os.path.dirname(path) or "."
    try:
        fst = os.stat(folder)
    except OSError:
        raise TraceError(f"{flag} {path}: the folder {folder} does not "
                         "exist; expected a file in an existing folder")
    if not stat.S_ISDIR(fst.st_mode):
        raise TraceError(f"{flag} {path}: {folder} is not a folder; expected "
                         "a file in an existing folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise TraceError(f"{flag} {path}: cannot write in the folder "
                         f"{folder}: permission denied")


def write_file(path: str, text: str, flag: str = "--output") -> None:
    """Writes `text` to `path` as one rename of a private temporary."""
    check_destination(path, flag)
    folder = os.path.dirname(path) or "."
    data = text.encode("utf-8")
    try:
        fd, tmp = tempfile.mkstemp(
            prefix="." + os.path.basename(path) + _TEMP_SUFFIX, dir=folder)
    except OSError as e:
        raise TraceError(f"{flag} {path}: cannot create a temporary file in "
                         f"{folder}: {e.strerror}")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            # As the C++ writer: readable by all, whatever mkstemp's 0600.
            os.fchmod(fd, 0o644)
            os.fsync(fd)
        finally:
            os.close(fd)
        # Checked again just before the rename: a device put in place while
        # the kernel was traced is still not replaced.
        check_destination(path, flag)
        os.rename(tmp, path)
    except OSError as e:
        _unlink_quietly(tmp)
        raise TraceError(f"{flag} {path}: cannot write: {e.strerror}")
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
