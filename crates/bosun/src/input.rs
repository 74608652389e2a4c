//! Reading the files a user names on the command line (`-f`, `--set-file`, the files `manifest
//! diff` and `profile diff` compare) without hanging on, or filling memory from, what is no
//! file.
//!
//! Helm and istioctl open whatever they are given and read it to its end: a named pipe with no
//! writer blocks them for ever, `/dev/zero` fills their memory. bosun reads:
//! - a regular file, of at most [`MAX_INPUT`] bytes (its size is known before it is read);
//! - stdin (`-`, and any path that is stdin, such as `/dev/stdin`), as a stream, to EOF;
//! - a pipe that a program is writing to, such as `<(command)`'s `/dev/fd/63` or a named pipe
//!   a program has open, as a stream, to EOF;
//!
//! and refuses, at once and naming the file, a named pipe no program is writing to (it would
//! wait for ever), a character or block device (`/dev/zero` never ends) and a socket. A stream
//! is read within [`MAX_INPUT`] bytes too.

use std::io::Read;
use std::path::Path;

/// The most bosun reads of one input file or stream: Helm's bound on a whole chart
/// (`helm::chart::MAX_CHART_SIZE`, 100 MiB); Istio's largest input, its CRDs, is 1 MB.
pub const MAX_INPUT: u64 = helm::chart::MAX_CHART_SIZE;

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{}", crate::io_error_text(.0))]
    Io(#[from] std::io::Error),
    /// A device or socket: no file to read.
    #[error("it is {kind}, not a regular file; give a file, or - for stdin")]
    NotAFile { kind: &'static str },
    /// A named pipe with no program writing to it: reading would wait for ever.
    #[error(
        "it is a named pipe that no program is writing to; give a file, - for stdin, or a pipe with a writer such as <(command)"
    )]
    NoWriter,
    #[error("it holds more than {limit} bytes, the most bosun reads of one input")]
    TooLarge { limit: u64 },
}

/// What a file that is not a regular file or a directory is, in words.
fn kind_of(file_type: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
    }
    let _ = file_type;
    None
}

/// The file at `path` as text (invalid UTF-8 is an error, as Rust's `read_to_string`).
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|_| {
        InputError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// stdin as text, within [`MAX_INPUT`].
pub fn read_stdin() -> Result<String, InputError> {
    let mut bytes = Vec::new();
    read_bounded(&mut std::io::stdin().lock(), &mut bytes)?;
    String::from_utf8(bytes).map_err(|_| {
        InputError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// The file at `path`, read as the module's doc says.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    // Looked at before it is opened: opening a device or socket may itself wait or fail
    // obscurely.
    // (stdin may be a terminal, a device, and is read as `-` is.)
    let refuse = |meta: &std::fs::Metadata| match kind_of(&meta.file_type()) {
        Some(kind) if !is_stdin(meta) => Err(InputError::NotAFile { kind }),
        _ => Ok(()),
    };
    refuse(&std::fs::metadata(path)?)?;
    let mut file = open_nonblocking(path)?;
    // Looked at again on the open file: it may have been replaced meanwhile.
    let meta = file.metadata()?;
    refuse(&meta)?;
    let mut bytes = Vec::new();
    if meta.is_file() {
        if meta.len() > MAX_INPUT {
            return Err(InputError::TooLarge { limit: MAX_INPUT });
        }
        bytes.reserve(meta.len() as usize);
        read_bounded(&mut file, &mut bytes)?;
        return Ok(bytes);
    }
    if !is_stdin(&meta) {
        // A pipe. Without waiting: EOF at once means no program has it open for writing (a
        // writer that already wrote and left leaves its data, which is read here).
        let mut first = [0u8; 4096];
        match file.read(&mut first) {
            Ok(0) => return Err(InputError::NoWriter),
            Ok(n) => bytes.extend_from_slice(&first[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e.into()),
        }
    }
    set_blocking(&file)?;
    read_bounded(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// Reads `reader` to its end onto `out`, refusing more than [`MAX_INPUT`] bytes in all.
fn read_bounded(reader: &mut impl Read, out: &mut Vec<u8>) -> Result<(), InputError> {
    let room = (MAX_INPUT + 1).saturating_sub(out.len() as u64);
    reader.take(room).read_to_end(out)?;
    if out.len() as u64 > MAX_INPUT {
        return Err(InputError::TooLarge { limit: MAX_INPUT });
    }
    Ok(())
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(unix)]
fn set_blocking(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function's caller owns; no pointers.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_blocking(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// Whether the open file is the process's stdin (`/dev/stdin`, `/proc/self/fd/0`): read as a
/// stream, waiting as `-` does.
#[cfg(unix)]
fn is_stdin(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: fstat of descriptor 0 into a zeroed stat buffer of ours.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(0, &mut st) == 0 && st.st_dev == meta.dev() && st.st_ino == meta.ino()
    }
}

#[cfg(not(unix))]
fn is_stdin(_meta: &std::fs::Metadata) -> bool {
    false
}
