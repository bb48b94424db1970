/// The shell side of completion: each script hands the words before the cursor to
/// `photoedit completion candidates --` and turns its answer (see `Completion`) into the shell's
/// own completions. Words are split on blanks only; a quoted file name with spaces completes as
/// the shell's own file completion does.
enum CompletionScripts {
  static func script(_ shell: String) -> String? {
    switch shell {
    case "bash": bash
    case "zsh": zsh
    case "fish": fish
    default: nil
    }
  }

  static let bash = #"""
    # bash completion for photoedit (printed by 'photoedit completion bash')
    _photoedit() {
      local line=${COMP_LINE:0:COMP_POINT}
      local -a words
      read -ra words <<< "$line"
      [[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]] && words+=("")
      local cur=${words[${#words[@]}-1]}
      local answer
      answer=$("${words[0]}" completion candidates -- "${words[@]:1}" 2>/dev/null) || return 0
      local -a lines
      mapfile -t lines <<< "$answer"
      local IFS=$'\n'
      case ${lines[0]} in
        files|dirs)
          local flag=-f; [[ ${lines[0]} == dirs ]] && flag=-d
          COMPREPLY=($(compgen $flag -- "${lines[2]##*[=:]}"))
          compopt -o filenames 2>/dev/null
          ;;
        *)
          # bash completes the text after the last '=' or ':' of the word; keep the rest.
          local keep=${cur%"${cur##*[=:]}"}
          COMPREPLY=()
          local word
          for word in "${lines[@]:1}"; do
            [[ -n $word ]] && COMPREPLY+=("${word#"$keep"}")
          done
          [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[=:] ]] && compopt -o nospace 2>/dev/null
          ;;
      esac
      return 0
    }
    complete -F _photoedit photoedit

    """#

  static let zsh = #"""
    #compdef photoedit
    # zsh completion for photoedit (printed by 'photoedit completion zsh')
    _photoedit() {
      local -a answer found
      answer=("${(@f)$("${words[1]}" completion candidates -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
      case $answer[1] in
        files) _files ;;
        dirs) _files -/ ;;
        *)
          found=("${(@)answer[2,-1]}")
          compadd -Q -S '' -- ${(M)found:#*[=:]}
          compadd -Q -- ${found:#*[=:]}
          ;;
      esac
    }
    if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
      _photoedit "$@"
    else
      compdef _photoedit photoedit
    fi

    """#

  static let fish = #"""
    # fish completion for photoedit (printed by 'photoedit completion fish')
    function __photoedit_complete
        set -l words (commandline -opc) (commandline -ct)
        set -l answer ($words[1] completion candidates -- $words[2..-1] 2>/dev/null)
        switch "$answer[1]"
            case files
                for path in (__fish_complete_path "$answer[3]")
                    echo "$answer[2]$path"
                end
            case dirs
                for path in (__fish_complete_directories "$answer[3]" "")
                    echo "$answer[2]$path"
                end
            case '*'
                printf '%s\n' $answer[2..-1]
        end
    end
    complete -c photoedit -f -a '(__photoedit_complete)'

    """#
}
