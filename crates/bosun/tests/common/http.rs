//! A file server on 127.0.0.1 for the tests of downloads (a module proxy, a release mirror):
//! GET of a path under its directory answers the file, anything else 404. One thread, one
//! request per connection; stopped (the port closed) when dropped, so a test can show that a
//! second run needs no server.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub struct FileServer {
    pub url: String,
    port: u16,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FileServer {
    pub fn start(root: &Path) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(AtomicUsize::new(0));
        let root = root.to_path_buf();
        let thread = {
            let (stop, requests) = (stop.clone(), requests.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(conn) = conn {
                        requests.fetch_add(1, Ordering::SeqCst);
                        let _ = serve(conn, &root);
                    }
                }
            })
        };
        FileServer {
            url: format!("http://127.0.0.1:{port}"),
            port,
            stop,
            requests,
            thread: Some(thread),
        }
    }

    /// How many requests it answered.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag and closes the listener.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(conn: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // The headers are read and dropped.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let file: Option<PathBuf> = path
        .strip_prefix('/')
        .filter(|p| !p.split('/').any(|s| s == ".." || s.is_empty()))
        .map(|p| root.join(p));
    let mut conn = conn;
    match file.and_then(|f| std::fs::read(f).ok()) {
        Some(data) => {
            write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                data.len()
            )?;
            conn.write_all(&data)?;
        }
        None => {
            conn.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )?;
        }
    }
    conn.flush()
}
