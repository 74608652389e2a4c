//! `bosun completion SHELL`: the shell completion script for bosun's commands and flags, as
//! `istioctl completion` prints one (generated from the command line's own definition by
//! `clap_complete`, so it never falls behind a new command).

use clap::Args;
use clap_complete::Shell;

use crate::mesh::MeshFailure;

#[derive(Args, Debug)]
#[command(after_long_help = "\
To load completions in the current shell:
  bash:  source <(bosun completion bash)
  zsh:   source <(bosun completion zsh)
  fish:  bosun completion fish | source

To load them in every new shell, once:
  bash:  bosun completion bash > /etc/bash_completion.d/bosun
  zsh:   bosun completion zsh > \"${fpath[1]}/_bosun\"   (with compinit enabled)
  fish:  bosun completion fish > ~/.config/fish/completions/bosun.fish")]
pub struct CompletionArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the script for `args.shell` completing `command` (the whole command line).
pub fn completion(args: CompletionArgs, mut command: clap::Command) -> Result<(), MeshFailure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "bosun", &mut script);
    let script = String::from_utf8(script)
        .map_err(|e| MeshFailure(format!("the {} script is not UTF-8: {e}", args.shell)))?;
    crate::mesh::write_stdout(&script)
}
