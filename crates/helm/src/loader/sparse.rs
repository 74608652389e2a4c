//! GNU sparse files in PAX archives (formats 0.0, 0.1 and 1.0), which the `tar` crate hands
//! over as ordinary files: their data is only the written chunks (for 1.0, after a map of
//! where they go), under a made-up name (`…/GNUSparseFile.0/NAME`). Go's `archive/tar`, and
//! so Helm, gives such an entry its real name and its real content, holes filled with zeros;
//! a chart packed with `tar --sparse --format=posix` must load the same here. (The old GNU
//! format, type `S`, the `tar` crate already expands.)
//!
//! Pure: the caller reads the entry (within its limits) and passes the PAX records and bytes.

/// What an entry's PAX records say about a sparse file.
#[derive(Debug, PartialEq)]
pub(crate) struct SparseHeader {
    /// `GNU.sparse.name`: the file's real name (the entry's own is made up).
    pub name: Option<String>,
    /// `GNU.sparse.size` (0.x) or `GNU.sparse.realsize` (1.0): the file's size, holes included.
    pub real_size: u64,
    map: MapSource,
}

#[derive(Debug, PartialEq)]
enum MapSource {
    /// 0.0 (`GNU.sparse.offset`/`numbytes` pairs) and 0.1 (`GNU.sparse.map`): in the records.
    Records(Vec<u64>),
    /// 1.0: at the start of the entry's data, in 512-byte blocks.
    InData,
}

/// Why a sparse entry cannot be read: Go's `archive/tar` refuses the same as a bad header.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("invalid GNU sparse file: {0}")]
pub(crate) struct SparseError(String);

fn bad(why: impl Into<String>) -> SparseError {
    SparseError(why.into())
}

/// The sparse header `records` (an entry's PAX records, in order) describe, `None` for an
/// ordinary file. Versions Go does not know are ordinary files to it, and so here.
pub(crate) fn header<'a>(
    records: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Option<SparseHeader>, SparseError> {
    let (mut major, mut minor, mut name, mut size, mut map) = (None, None, None, None, None);
    let mut blocks = None;
    // 0.0 repeats offset/numbytes records; they are the map, in order.
    let mut pairs = Vec::new();
    for (key, value) in records {
        match key {
            "GNU.sparse.major" => major = Some(value),
            "GNU.sparse.minor" => minor = Some(value),
            "GNU.sparse.name" => name = Some(value),
            "GNU.sparse.size" => size = size.or(Some(value)),
            "GNU.sparse.realsize" => size = Some(value),
            "GNU.sparse.map" => map = Some(value),
            "GNU.sparse.numblocks" => blocks = Some(value),
            "GNU.sparse.offset" | "GNU.sparse.numbytes" => pairs.push(number(value)?),
            _ => {}
        }
    }
    let in_data = match (major, minor) {
        (Some("0"), Some("0" | "1")) => false,
        (Some("1"), Some("0")) => true,
        (Some(_), _) | (_, Some(_)) => return Ok(None),
        (None, None) if map.is_some() || !pairs.is_empty() => false,
        (None, None) => return Ok(None),
    };
    let real_size = number(size.ok_or_else(|| bad("no GNU.sparse.size or realsize record"))?)?;
    let map = if in_data {
        MapSource::InData
    } else {
        let numbers = match map {
            Some("") => Vec::new(),
            Some(map) => map.split(',').map(number).collect::<Result<_, _>>()?,
            None => pairs,
        };
        // Go's reader insists on the count and that the map holds that many chunks.
        let blocks = number(blocks.ok_or_else(|| bad("no GNU.sparse.numblocks record"))?)?;
        if Some(numbers.len() as u64) != blocks.checked_mul(2) {
            return Err(bad(format!(
                "GNU.sparse.numblocks is {blocks}, the map has {} numbers",
                numbers.len()
            )));
        }
        MapSource::Records(numbers)
    };
    Ok(Some(SparseHeader {
        name: name.filter(|n| !n.is_empty()).map(str::to_string),
        real_size,
        map,
    }))
}

fn number(text: &str) -> Result<u64, SparseError> {
    text.parse()
        .map_err(|_| bad(format!("{text:?} is not a size or offset")))
}

/// The file's content: `data` (the entry's bytes) laid out at the map's offsets in
/// `header.real_size` bytes, the holes zero. The caller has bounded `real_size`.
pub(crate) fn expand(header: &SparseHeader, data: &[u8]) -> Result<Vec<u8>, SparseError> {
    let (numbers, chunks) = match &header.map {
        MapSource::Records(numbers) => (numbers.clone(), data),
        MapSource::InData => map_in_data(data)?,
    };
    if numbers.len() % 2 != 0 {
        return Err(bad("the map has an offset without a length"));
    }
    let mut content = vec![0; usize::try_from(header.real_size).map_err(|_| bad("too large"))?];
    let (mut end_of_last, mut taken) = (0u64, 0usize);
    for pair in numbers.chunks(2) {
        let (offset, length) = (pair[0], pair[1]);
        let end = offset
            .checked_add(length)
            .filter(|&end| end <= header.real_size && offset >= end_of_last)
            .ok_or_else(|| bad("the map's chunks overlap or lie beyond the file's size"))?;
        let length = length as usize;
        let chunk = chunks
            .get(taken..taken + length)
            .ok_or_else(|| bad("the entry holds less data than its map says"))?;
        content[offset as usize..end as usize].copy_from_slice(chunk);
        (end_of_last, taken) = (end, taken + length);
    }
    Ok(content)
}

/// Format 1.0's map at the start of `data`: decimal numbers, one a line (the count, then
/// offset and length of each chunk), padded to whole 512-byte blocks; then the chunks.
fn map_in_data(data: &[u8]) -> Result<(Vec<u64>, &[u8]), SparseError> {
    let mut lines = data.split(|&b| b == b'\n');
    let mut next = |what: &str| -> Result<(u64, usize), SparseError> {
        let line = lines
            .next()
            .ok_or_else(|| bad(format!("the map ends before its {what}")))?;
        let text = std::str::from_utf8(line).map_err(|_| bad("the map is not text"))?;
        Ok((number(text)?, line.len() + 1))
    };
    let (count, mut used) = next("count")?;
    // Each number takes two bytes at least: a count beyond the data is a lie.
    if count > (data.len() / 4) as u64 {
        return Err(bad(format!(
            "a map of {count} chunks in {} bytes",
            data.len()
        )));
    }
    let mut numbers = Vec::with_capacity(2 * count as usize);
    for _ in 0..2 * count {
        let (n, len) = next("chunks")?;
        numbers.push(n);
        used += len;
    }
    let start = used.div_ceil(512) * 512;
    let chunks = data
        .get(start..)
        .ok_or_else(|| bad("the map runs past the entry's data"))?;
    Ok((numbers, chunks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format_1_0_of_8_bytes() -> SparseHeader {
        header([
            ("GNU.sparse.major", "1"),
            ("GNU.sparse.minor", "0"),
            ("GNU.sparse.realsize", "8"),
        ])
        .unwrap()
        .unwrap()
    }

    #[test]
    fn ordinary_files_and_unknown_versions_are_not_sparse() {
        assert_eq!(header([("path", "c/a.txt")]), Ok(None));
        assert_eq!(header([("GNU.sparse.major", "2")]), Ok(None));
    }

    #[test]
    fn each_format_lays_its_chunks_out_with_holes() {
        let expected = b"ab\0\0\0cd\0".to_vec();
        let v00 = header([
            ("GNU.sparse.size", "8"),
            ("GNU.sparse.numblocks", "2"),
            ("GNU.sparse.offset", "0"),
            ("GNU.sparse.numbytes", "2"),
            ("GNU.sparse.offset", "5"),
            ("GNU.sparse.numbytes", "2"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(expand(&v00, b"abcd").unwrap(), expected);

        let v01 = header([
            ("GNU.sparse.major", "0"),
            ("GNU.sparse.minor", "1"),
            ("GNU.sparse.name", "c/big.txt"),
            ("GNU.sparse.size", "8"),
            ("GNU.sparse.numblocks", "2"),
            ("GNU.sparse.map", "0,2,5,2"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(v01.name.as_deref(), Some("c/big.txt"));
        assert_eq!(expand(&v01, b"abcd").unwrap(), expected);

        let v10 = format_1_0_of_8_bytes();
        let mut data = b"2\n0\n2\n5\n2\n".to_vec();
        data.resize(512, 0);
        data.extend_from_slice(b"abcd");
        assert_eq!(expand(&v10, &data).unwrap(), expected);
    }

    #[test]
    fn lying_maps_are_refused() {
        let with_map = |map: &str, blocks: &str| {
            header([
                ("GNU.sparse.map", map),
                ("GNU.sparse.numblocks", blocks),
                ("GNU.sparse.size", "8"),
            ])
        };
        // Beyond the size, overlapping, more than the data holds.
        for map in ["6,4", "0,4,2,2", "0,8"] {
            let blocks = (map.split(',').count() / 2).to_string();
            let header = with_map(map, &blocks).unwrap().unwrap();
            assert!(expand(&header, b"abcd").is_err(), "{map}");
        }
        // A count that is not the map's, or none.
        assert!(with_map("0,2,5", "1").is_err());
        assert!(with_map("0,2", "2").is_err());
        assert!(header([("GNU.sparse.map", "0,2"), ("GNU.sparse.size", "8")]).is_err());
        let v10 = format_1_0_of_8_bytes();
        assert!(expand(&v10, b"99999999\n").is_err());
        assert!(expand(&v10, b"1\n0\n").is_err());
        assert!(with_map("0,x", "1").is_err());
    }
}
