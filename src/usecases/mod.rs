//! The use cases: what each `ravenpost` command does, for every front end (the command
//! line, the mail and site front ends, the server's hooks). Each change a player makes (a
//! new game, a move, a resignation, a draw action, a timeout claim, leave, an army choice
//! step) is read from the branch tip, decided by the [`crate::referee`] and the record
//! rules, and committed on that tip with a compare-and-swap by [`crate::archive`]; each
//! question asked of an archive (`status`, `log`, `verify`, what the pre-receive hook and
//! `sync` accept; a tournament's standings, the ratings, the games waiting for one player)
//! is answered from the archive's history index.
//!
//! Front ends parse their input, call one function here and present its answer.
//!
//! The files form layers with no circle (checked by the `structure` test): the leaves
//! [`error`]-and-refusal types and the report types; then `definitions`, `games` (the
//! kernel: open, find, read, change a game, commit a player's step, and the player
//! actions), `clock`, `armies` and `conditional`; `checks` (status, log, verify); then
//! `exchange` (hook, sync), `club` (accounts, the post-receive hook), `tournament`, `watch`,
//! `mail`, `notify`, `reminders`, `referee_bots` (the mailbox's computer players, played
//! with `bot`), `referee_mail` (the referee mailbox) and `completion` (what a shell's
//! completion offers).

mod analysis;
mod annotate;
mod armies;
mod bot;
mod checks;
mod clock;
mod club;
mod completion;
mod conditional;
mod definitions;
mod engine_match;
mod error;
mod exchange;
pub mod files;
mod games;
mod kept_report;
mod layout;
mod report;
mod session;
mod settings;
mod tls_words;
mod tournament;
mod watch;

pub mod dkim;
pub mod mail;
pub mod notify;
pub mod referee_bots;
pub mod referee_imap;
pub mod referee_mail;
pub mod reminders;

pub use analysis::{AnalysedLine, Analysis, Budget, analyse_game, analyse_position, analyse_until};
pub use annotate::{Annotated, AnnotatedPly, Judgement, annotate, judge, winning_chances};
pub use armies::{ArmyOutcome, army_choice, army_commit, army_reveal};
pub use bot::{BotAction, BotMove, BotPass, BotSkipped, bot_pass};
pub use checks::{LogLine, StatusLine, choice_history, history, status, verify, verify_tournaments};
pub use clock::clock_of_game;
pub use club::{HookRun, account_side, club_accounts, plays_as, run_post_receive};
pub use completion::{GameChoice, Standing, game_choices, variant_names};
pub use conditional::{
    Answer, AnswerOutcome, Prepared, answer_prepared, conditional_add, conditional_clear, conditional_show,
    prepared_owners,
};
pub use definitions::{at_tip as definitions_at, import_fsf};
pub use engine_match::{
    EloEstimate, EngineSpec, MatchGame, MatchReport, MatchScore, MatchSetup, MoveBudget, Opening, elo_of,
    play_match, read_openings, score_of, split_command, sprt_bounds,
};
pub use error::{Error, SyncRefusal, SyncStep, TreeRefused};
pub use exchange::{
    GITOLITE_HOOK_NAME, HOOK_EXE_ENV, HookTarget, SyncOutcome, SyncReport, check_range, check_range_pushed,
    hook_check, hook_explain, hook_script, hook_script_with, install_hook, install_hook_to,
    install_notify_hook, notify_hook_script, open_for_sync, sync,
};
pub use games::{
    ClubSetup, Made, NewGame, WithMove, archive_variant, claim_timeout, draw, find, init, init_club, leave,
    new_game, open, open_or_make, per_user_dir, play, play_with, resign, step_committer,
};
pub use layout::{Migrated, migrate_layout};
pub use report::{ShallowBoundary, UncheckedGame, VerifyProblem, VerifyReport};
pub use session::{Clock, PUSHER_VAR_ENV, PUSHER_VARIABLES, PusherUnnamed, Session, pusher_from};
pub use settings::{SettingsChanged, SettingsEdit, ShownSettings, change_settings, show_settings};
pub use tournament::{
    Advanced, Created, ELO_K, ELO_START, GLICKO2_TAU, NewTournament, PROVISIONAL_DEVIATION, PlayerRating,
    RatedGame, RatingMethod, Ratings, glicko2_period, identity_name, list_tournaments, ratings, standings,
    to_move, tournament_new, tournament_next,
};
pub use watch::{SyncAnswered, WatchRound, sync_answering, sync_watch};
