/// Public keys generated with OpenSSL for the pin tests (test data only, no private keys).
enum Fixtures {
  static let rsaPKCS1 =
    "MIIBCgKCAQEArNW0QzoOMfK/711fi5aYet8aE8v/hmiaaiaTg+uo8H9UA5x7V5BTA0gV6WfEwb9x/84xsa+tmuYP1okirey+"
    + "svlkpxsGX4HOrv9vUfraEetb1XGtUcIkGgS36qjHvZExfbi4E4ile2bzXownxnE1Afiu3Tm6UGeZLosptksRuolSPs6Y6Av5"
    + "+S1ciRwjL7nNOVJp2iv3/TfD2MIJ1/2pVDPm7iUs2TT1I7IbITHkmDbu3EhpgNEtbGkWBfaRYn0PZk8TKB0HVteozHy2D/rR"
    + "9OSUnQgu8hUOEhwlg2BNwhV/DS1YRBTUeh41AC0QVStLHbBKd9MGz8Z42kKscZL+YwIDAQAB"
  static let rsaSPKI =
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArNW0QzoOMfK/711fi5aYet8aE8v/hmiaaiaTg+uo8H9UA5x7V5BT"
    + "A0gV6WfEwb9x/84xsa+tmuYP1okirey+svlkpxsGX4HOrv9vUfraEetb1XGtUcIkGgS36qjHvZExfbi4E4ile2bzXownxnE1"
    + "Afiu3Tm6UGeZLosptksRuolSPs6Y6Av5+S1ciRwjL7nNOVJp2iv3/TfD2MIJ1/2pVDPm7iUs2TT1I7IbITHkmDbu3EhpgNEt"
    + "bGkWBfaRYn0PZk8TKB0HVteozHy2D/rR9OSUnQgu8hUOEhwlg2BNwhV/DS1YRBTUeh41AC0QVStLHbBKd9MGz8Z42kKscZL+"
    + "YwIDAQAB"
  static let ecPoint =
    "BMWL8KRxy+qTlD3at8mnqahQxStEUXWeU8nGrdtJ7pNXpeOwGXbbTjA4LlbaDvp7UWn0c1baNDYY0EZB8hKl9/U="
  static let ecSPKI =
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAExYvwpHHL6pOUPdq3yaepqFDFK0RRdZ5Tycat20nuk1el47AZdttOMDguVtoO"
    + "+ntRafRzVto0NhjQRkHyEqX39Q=="
}
