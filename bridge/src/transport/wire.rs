//! The minimal subset of Zellij's client/server contract (protobuf, from
//! zellij-utils `client_server_contract/*.proto`, contract version 1) that a
//! CLI pipe and a pane subscription (`zellij subscribe`) need. Field numbers
//! must match Zellij's; unknown messages from the server decode to `None`
//! and are skipped.

use std::collections::HashMap;

#[derive(Clone, PartialEq, prost::Message)]
pub struct ClientToServerMsg {
    #[prost(oneof = "client_to_server::Message", tags = "9, 17")]
    pub message: Option<client_to_server::Message>,
}

pub mod client_to_server {
    // Built once per request and sent at once; its size does not matter.
    #[allow(clippy::large_enum_variant)]
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Message {
        #[prost(message, tag = "9")]
        Action(super::ActionMsg),
        #[prost(message, tag = "17")]
        SubscribeToPaneRenders(super::SubscribeToPaneRendersMsg),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeToPaneRendersMsg {
    #[prost(message, repeated, tag = "1")]
    pub pane_ids: Vec<PaneId>,
    /// Scrollback rows in the first update: 0 for all, N for the last N.
    #[prost(uint32, optional, tag = "2")]
    pub scrollback: Option<u32>,
    #[prost(bool, tag = "3")]
    pub ansi: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneId {
    #[prost(oneof = "pane_id::PaneType", tags = "1, 2")]
    pub pane_type: Option<pane_id::PaneType>,
}

pub mod pane_id {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum PaneType {
        #[prost(uint32, tag = "1")]
        Terminal(u32),
        #[prost(uint32, tag = "2")]
        Plugin(u32),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ActionMsg {
    #[prost(message, optional, tag = "1")]
    pub action: Option<Action>,
    #[prost(uint32, optional, tag = "2")]
    pub terminal_id: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub client_id: Option<u32>,
    #[prost(bool, tag = "4")]
    pub is_cli_client: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Action {
    #[prost(oneof = "action::ActionType", tags = "84")]
    pub action_type: Option<action::ActionType>,
}

pub mod action {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum ActionType {
        #[prost(message, tag = "84")]
        CliPipe(super::CliPipeAction),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CliPipeAction {
    #[prost(string, tag = "1")]
    pub pipe_id: String,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub payload: Option<String>,
    #[prost(map = "string, string", tag = "4")]
    pub args: HashMap<String, String>,
    #[prost(string, optional, tag = "5")]
    pub plugin: Option<String>,
    #[prost(map = "string, string", tag = "6")]
    pub configuration: HashMap<String, String>,
    #[prost(bool, tag = "7")]
    pub launch_new: bool,
    #[prost(bool, tag = "8")]
    pub skip_cache: bool,
    #[prost(bool, optional, tag = "9")]
    pub floating: Option<bool>,
    #[prost(bool, optional, tag = "10")]
    pub in_place: Option<bool>,
    #[prost(string, optional, tag = "11")]
    pub cwd: Option<String>,
    #[prost(string, optional, tag = "12")]
    pub pane_title: Option<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ServerToClientMsg {
    #[prost(oneof = "server_to_client::Message", tags = "3, 5, 6, 8, 9, 14, 15")]
    pub message: Option<server_to_client::Message>,
}

pub mod server_to_client {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Message {
        #[prost(message, tag = "3")]
        Exit(super::ExitMsg),
        #[prost(message, tag = "5")]
        Log(super::LogMsg),
        #[prost(message, tag = "6")]
        LogError(super::LogMsg),
        #[prost(message, tag = "8")]
        UnblockCliPipeInput(super::PipeNameMsg),
        #[prost(message, tag = "9")]
        CliPipeOutput(super::CliPipeOutputMsg),
        #[prost(message, tag = "14")]
        PaneRenderUpdate(super::PaneRenderUpdateMsg),
        #[prost(message, tag = "15")]
        SubscribedPaneClosed(super::SubscribedPaneClosedMsg),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneRenderUpdateMsg {
    #[prost(message, optional, tag = "1")]
    pub pane_id: Option<PaneId>,
    #[prost(string, repeated, tag = "2")]
    pub viewport: Vec<String>,
    #[prost(string, repeated, tag = "3")]
    pub scrollback: Vec<String>,
    #[prost(bool, tag = "4")]
    pub has_scrollback: bool,
    #[prost(bool, tag = "5")]
    pub is_initial: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribedPaneClosedMsg {
    #[prost(message, optional, tag = "1")]
    pub pane_id: Option<PaneId>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ExitMsg {
    #[prost(int32, tag = "1")]
    pub exit_reason: i32,
    #[prost(string, optional, tag = "2")]
    pub payload: Option<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct LogMsg {
    #[prost(string, repeated, tag = "1")]
    pub lines: Vec<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PipeNameMsg {
    #[prost(string, tag = "1")]
    pub pipe_name: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CliPipeOutputMsg {
    #[prost(string, tag = "1")]
    pub pipe_name: String,
    #[prost(string, tag = "2")]
    pub output: String,
}

/// A CLI-pipe message as the `zellij pipe` CLI would send it.
pub fn pipe_message(
    pipe_id: &str,
    payload: String,
    plugin: Option<(String, HashMap<String, String>)>,
) -> ClientToServerMsg {
    named_pipe_message(pipe_id, zellij_mcp_protocol::PIPE_NAME, payload, plugin)
}

/// A CLI-pipe message of pipe `name`.
pub fn named_pipe_message(
    pipe_id: &str,
    name: &str,
    payload: String,
    plugin: Option<(String, HashMap<String, String>)>,
) -> ClientToServerMsg {
    let (plugin, configuration) = match plugin {
        Some((url, configuration)) => (Some(url), configuration),
        None => (None, HashMap::new()),
    };
    ClientToServerMsg {
        message: Some(client_to_server::Message::Action(ActionMsg {
            action: Some(Action {
                action_type: Some(action::ActionType::CliPipe(CliPipeAction {
                    pipe_id: pipe_id.to_owned(),
                    name: Some(name.to_owned()),
                    payload: Some(payload),
                    plugin,
                    configuration,
                    ..Default::default()
                })),
            }),
            terminal_id: None,
            client_id: None,
            is_cli_client: true,
        })),
    }
}

/// A subscription to one pane's renders, asking for its scrollback rows
/// (`tail`: the last N, else all) in the first update.
pub fn subscribe(pane: zellij_mcp_protocol::PaneRef, tail: Option<usize>) -> ClientToServerMsg {
    use zellij_mcp_protocol::PaneKind;
    let pane_type = match pane.kind {
        PaneKind::Terminal => pane_id::PaneType::Terminal(pane.id),
        PaneKind::Plugin => pane_id::PaneType::Plugin(pane.id),
    };
    let tail = tail.map_or(0, |n| u32::try_from(n.max(1)).unwrap_or(u32::MAX));
    ClientToServerMsg {
        message: Some(client_to_server::Message::SubscribeToPaneRenders(
            SubscribeToPaneRendersMsg {
                pane_ids: vec![PaneId {
                    pane_type: Some(pane_type),
                }],
                scrollback: Some(tail),
                ansi: false,
            },
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn cli_pipe_action_sits_at_the_contract_field_numbers() {
        let msg = pipe_message("p1", "{}".into(), None);
        let bytes = msg.encode_to_vec();
        // field 9 (action), length-delimited: tag byte (9 << 3) | 2 = 0x4a
        assert_eq!(bytes[0], 0x4a);
        let back = ClientToServerMsg::decode(bytes.as_slice()).unwrap();
        assert_eq!(back, msg);
    }

    #[test]
    fn a_subscription_names_the_pane_and_the_scrollback_it_wants() {
        let msg = subscribe(zellij_mcp_protocol::PaneRef::terminal(7), None);
        let bytes = msg.encode_to_vec();
        // field 17, length-delimited: varint tag (17 << 3) | 2 = 0x8a 0x01
        assert_eq!(&bytes[..2], &[0x8a, 0x01]);
        let Some(client_to_server::Message::SubscribeToPaneRenders(sub)) =
            ClientToServerMsg::decode(bytes.as_slice()).unwrap().message
        else {
            panic!("not a subscription");
        };
        assert_eq!(sub.scrollback, Some(0), "0 asks for all of it");
        assert_eq!(
            sub.pane_ids[0].pane_type,
            Some(pane_id::PaneType::Terminal(7))
        );
    }

    #[test]
    fn unknown_server_messages_decode_to_none() {
        // field 2 (UnblockInputThread), empty message.
        let msg = ServerToClientMsg::decode([0x12u8, 0x00].as_slice()).unwrap();
        assert!(msg.message.is_none());
    }
}
